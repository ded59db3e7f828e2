/**
 * List pagination (docs/design.md, "HTTP conventions"): page/limit defaults, the 1000 cap, bad values, and nextPage /
 * previousPage links that keep the request's filters.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
beforeEach(() => {
  c = createTestConsole();
});
afterEach(() => c.close());

interface ListBody {
  data: { id: string }[];
  pagination: { itemsPerPage: number; pageNumber: number; totalItems: number; nextPage: string | null; previousPage: string | null; all: string };
}

async function list(url: string): Promise<ListBody> {
  const res = await c.call('GET', url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as ListBody;
}

async function createGates(count: number, extra: (i: number) => Record<string, unknown> = () => ({})): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const id = `gate_${String(i).padStart(4, '0')}`;
    const res = await c.call('POST', '/console/v1/gates', { id, name: id, ...extra(i) });
    expect(res.statusCode).toBe(201);
    ids.push(id);
  }
  return ids;
}

describe('pagination', () => {
  it('an empty list: page 1 of 0', async () => {
    const body = await list('/console/v1/gates');
    expect(body.data).toEqual([]);
    expect(body.pagination).toEqual({ itemsPerPage: 100, pageNumber: 1, totalItems: 0, nextPage: null, previousPage: null, all: '/console/v1/gates' });
  });

  it('defaults to page 1 and 100 items, with a link to the next page', async () => {
    const ids = await createGates(101);
    const first = await list('/console/v1/gates');
    expect(first.data.map((g) => g.id)).toEqual(ids.slice(0, 100));
    expect(first.pagination).toEqual({ itemsPerPage: 100, pageNumber: 1, totalItems: 101, nextPage: '/console/v1/gates?page=2&limit=100', previousPage: null, all: '/console/v1/gates' });
    const second = await list(first.pagination.nextPage ?? '');
    expect(second.data.map((g) => g.id)).toEqual([ids[100]]);
    expect(second.pagination).toMatchObject({ pageNumber: 2, nextPage: null, previousPage: '/console/v1/gates?page=1&limit=100' });
  });

  it('limit 1: one item per page; following nextPage visits every item once', async () => {
    const ids = await createGates(3);
    const seen: string[] = [];
    let url: string | null = '/console/v1/gates?limit=1';
    const pages: ListBody['pagination'][] = [];
    while (url !== null) {
      const body = await list(url);
      seen.push(...body.data.map((g) => g.id));
      pages.push(body.pagination);
      url = body.pagination.nextPage;
    }
    expect(seen).toEqual(ids);
    expect(pages.map((p) => [p.pageNumber, p.itemsPerPage, p.totalItems, p.previousPage, p.nextPage])).toEqual([
      [1, 1, 3, null, '/console/v1/gates?page=2&limit=1'],
      [2, 1, 3, '/console/v1/gates?page=1&limit=1', '/console/v1/gates?page=3&limit=1'],
      [3, 1, 3, '/console/v1/gates?page=2&limit=1', null],
    ]);
  });

  it('a page beyond the end is empty, with no next page and a link back', async () => {
    await createGates(3);
    const body = await list('/console/v1/gates?page=7&limit=2');
    expect(body.data).toEqual([]);
    expect(body.pagination).toEqual({ itemsPerPage: 2, pageNumber: 7, totalItems: 3, nextPage: null, previousPage: '/console/v1/gates?page=6&limit=2', all: '/console/v1/gates' });
  });

  it('the last full page has no next page', async () => {
    await createGates(4);
    expect((await list('/console/v1/gates?page=2&limit=2')).pagination.nextPage).toBeNull();
  });

  it('accepts the cap, limit=1000', async () => {
    await createGates(2);
    const body = await list('/console/v1/gates?limit=1000');
    expect(body.pagination).toMatchObject({ itemsPerPage: 1000, totalItems: 2, nextPage: null });
  });

  it('accepts numeric strings with leading zeros', async () => {
    await createGates(3);
    const body = await list('/console/v1/gates?page=02&limit=002');
    expect(body.data.map((g) => g.id)).toEqual(['gate_0003']);
    expect(body.pagination).toMatchObject({ pageNumber: 2, itemsPerPage: 2 });
  });

  it('accepts the largest page a number holds exactly, 2^53-1', async () => {
    await createGates(1);
    expect((await list('/console/v1/gates?page=9007199254740991')).pagination).toMatchObject({ pageNumber: 9007199254740991, totalItems: 1 });
  });

  it('nextPage and previousPage keep the filters', async () => {
    await createGates(6, (i) => ({ type: i % 2 === 0 ? 'TEMPORARY' : 'PERMANENT', tags: ['web'] }));
    const body = await list('/console/v1/gates?type=TEMPORARY&tags=web&page=2&limit=1');
    expect(body.data.map((g) => g.id)).toEqual(['gate_0004']);
    expect(body.pagination).toMatchObject({
      totalItems: 3,
      nextPage: '/console/v1/gates?type=TEMPORARY&tags=web&page=3&limit=1',
      previousPage: '/console/v1/gates?type=TEMPORARY&tags=web&page=1&limit=1',
      all: '/console/v1/gates',
    });
    const next = await list(body.pagination.nextPage ?? '');
    expect(next.data.map((g) => g.id)).toEqual(['gate_0006']);
  });

  it('encodes filter values in the links', async () => {
    await createGates(2, () => ({ tags: ['a b&c'] }));
    const body = await list(`/console/v1/gates?tags=${encodeURIComponent('a b&c')}&limit=1`);
    expect(body.pagination.totalItems).toBe(2);
    expect((await list(body.pagination.nextPage ?? '')).data.map((g) => g.id)).toEqual(['gate_0002']);
  });

  it('pages the audit log with its filters', async () => {
    await createGates(3);
    const body = await list('/console/v1/audit_logs?kind=gate&limit=2');
    expect(body.pagination).toMatchObject({ totalItems: 3, nextPage: '/console/v1/audit_logs?kind=gate&page=2&limit=2', all: '/console/v1/audit_logs' });
  });

  const LISTS = ['/console/v1/gates', '/console/v1/dynamic_configs', '/console/v1/segments', '/console/v1/audit_logs', '/console/v1/gates/gate_0001/versions'];

  describe.each(LISTS)('bad paging on %s → 400 naming the parameter', (path) => {
    beforeEach(async () => {
      await createGates(1);
    });

    it.each([
      ['limit=1001', ['limit'], /at most 1000/],
      ['limit=0', ['limit'], /positive integer/],
      ['limit=-1', ['limit'], /positive integer/],
      ['limit=abc', ['limit'], /positive integer/],
      ['limit=1.5', ['limit'], /positive integer/],
      ['page=0', ['page'], /positive integer/],
      ['page=abc', ['page'], /positive integer/],
      ['page=x&limit=y', ['page', 'limit'], /positive integer/],
      ['limit=', ['limit'], /positive integer/],
      ['page=', ['page'], /positive integer/],
      ['page=9007199254740993', ['page'], /at most 9007199254740991/],
    ])('?%s', async (query, properties, message) => {
      const res = await c.call('GET', `${path}?${query}`);
      expect(res.statusCode).toBe(400);
      const errors = res.json().errors as { property: string; errorMessage: string }[];
      expect(errors.map((e) => e.property)).toEqual(properties);
      expect(errors[0]?.errorMessage).toMatch(message);
    });
  });
});
