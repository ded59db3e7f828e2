/**
 * `activeReview` on reads of gates, dynamic configs, segments and experiments: the newest open
 * review of the entity, gone once it is committed, rejected, canceled or stale.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../../test-support/test-console.js';

let c: TestConsole;
let bob: string;
let carol: string;
beforeEach(async () => {
  c = createTestConsole();
  bob = await c.keyFor('bob@example.com', 'member');
  carol = await c.keyFor('carol@example.com', 'member');
  await c.call('POST', '/console/v1/gates', { id: 'checkout', name: 'checkout' });
  await c.call('POST', '/console/v1/dynamic_configs', { id: 'banner', name: 'banner' });
  await c.call('POST', '/console/v1/segments', { id: 'staff', name: 'staff', type: 'id_list', ids: ['u1'] });
  await c.call('POST', '/console/v1/experiments', { id: 'exp1', name: 'exp one' });
});
afterEach(() => c.close());

const KINDS = [
  { path: 'gates', id: 'checkout', change: { description: 'reviewed' } },
  { path: 'dynamic_configs', id: 'banner', change: { description: 'reviewed' } },
  { path: 'segments', id: 'staff', change: { description: 'reviewed' } },
  { path: 'experiments', id: 'exp1', change: { hypothesis: 'reviewed' } },
];

const read = async (path: string, id: string) => (await c.call('GET', `/console/v1/${path}/${id}`)).json().data;
const listed = async (path: string, id: string) => ((await c.call('GET', `/console/v1/${path}`)).json().data as { id: string }[]).find((e) => e.id === id) as Record<string, unknown>;
const submit = async (path: string, id: string, body: Record<string, unknown>): Promise<string> => {
  const res = await c.call('POST', `/console/v1/${path}/${id}/reviews`, body, bob);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.reviewID as string;
};

describe.each(KINDS)('$path: activeReview', ({ path, id, change }) => {
  it('is absent without an open review, and follows the newest open one until it closes', async () => {
    expect(await read(path, id)).not.toHaveProperty('activeReview');
    expect(await listed(path, id)).not.toHaveProperty('activeReview');

    const first = await submit(path, id, { change, description: 'first' });
    const expected = { reviewID: first, reviewStatus: 'pending', description: 'first' };
    expect((await read(path, id)).activeReview).toEqual(expected);
    expect((await listed(path, id))['activeReview']).toEqual(expected);

    const second = await submit(path, id, { change, description: 'second' });
    expect((await read(path, id)).activeReview).toEqual({ reviewID: second, reviewStatus: 'pending', description: 'second' });
    expect((await c.call('DELETE', `/console/v1/${path}/${id}/reviews/${second}`, undefined, bob)).statusCode).toBe(200);
    expect((await read(path, id)).activeReview).toEqual(expected);

    await c.call('PUT', `/console/v1/${path}/${id}/reviews/${first}/approve`, undefined, carol);
    expect((await read(path, id)).activeReview).toMatchObject({ reviewID: first, reviewStatus: 'approved' });
    expect((await c.call('PUT', `/console/v1/${path}/${id}/reviews/${first}/commit`, undefined, bob)).json().data.status).toBe('committed');
    expect(await read(path, id)).not.toHaveProperty('activeReview');
    expect(await listed(path, id)).not.toHaveProperty('activeReview');
  });
});

describe('activeReview is a read field only', () => {
  it("write responses and other entities' reads leave it out", async () => {
    await submit('gates', 'checkout', { change: { description: 'x' }, description: 'pending one' });
    await c.call('POST', '/console/v1/gates', { id: 'other', name: 'other' });
    expect(await read('gates', 'other')).not.toHaveProperty('activeReview');
    expect((await c.call('PATCH', '/console/v1/gates/checkout', { tags: ['t'] })).json().data).not.toHaveProperty('activeReview');
  });
});
