/**
 * Mutate-one-field tables for any entity kind, including kinds keyed by name or with their own item
 * path (assignment sources): start from one valid body per write, change one property per case, and
 * check the 400 names exactly that property and that nothing of any kind changed (entities, versions,
 * audit log). Builds on validation-table.ts (which covers gates, dynamic configs and segments).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestConsole } from './test-console.js';
import { createTestConsole } from './test-console.js';
import { mutated, storeSnapshot, type Body, type MutationCase, type WriteOp } from './validation-table.js';

export interface KindValidationTable {
  /** List/create path under /console/v1: experiments, experiments/assignment_sources, ... */
  listPath: string;
  /** Item path when it differs: experiments/assignment_source. */
  itemPath?: string;
  /** Creates what the cases refer to, including `existingId` that updates and patches target. */
  seed(t: TestConsole): Promise<void>;
  existingId: string;
  /** One valid body per write the kind supports. The create body must name a new entity. */
  bodies: Partial<Record<WriteOp, Body>>;
  cases: readonly MutationCase[];
}

function request(table: KindValidationTable, op: WriteOp): { method: string; url: string } {
  if (op === 'create') return { method: 'POST', url: `/console/v1/${table.listPath}` };
  return { method: op === 'update' ? 'POST' : 'PATCH', url: `/console/v1/${table.itemPath ?? table.listPath}/${encodeURIComponent(table.existingId)}` };
}

/** Per write: one test that the base body is accepted (on a fresh console), one per case that applies. */
export function describeKindValidationTable(table: KindValidationTable): void {
  let t: TestConsole;
  beforeAll(async () => {
    t = createTestConsole();
    await table.seed(t);
  });
  afterAll(() => t.close());

  const ops = (['create', 'update', 'patch'] as const).filter((op) => table.bodies[op] !== undefined);
  describe.each(ops)('%s', (op) => {
    const { method, url } = request(table, op);
    const base = table.bodies[op] as Body;

    it('accepts the valid base body', async () => {
      const fresh = createTestConsole();
      try {
        await table.seed(fresh);
        const res = await fresh.call(method, url, base);
        expect(res.statusCode, res.body).toBe(op === 'create' ? 201 : 200);
      } finally {
        await fresh.close();
      }
    });

    const cases = table.cases.filter((c) => c.ops === undefined || c.ops.includes(op));
    it.each(cases)('$label → 400 naming $property, store unchanged', async (c) => {
      const before = storeSnapshot(t);
      const res = await t.call(method, url, mutated(base, c.path, c.value));
      expect(res.statusCode, res.body).toBe(400);
      const body = res.json() as { status: number; errors?: { property: string; errorMessage: string }[] };
      expect(body.status).toBe(400);
      expect(body.errors?.map((e) => e.property), res.body).toEqual([c.property]);
      if (c.message) expect(body.errors?.[0]?.errorMessage).toMatch(c.message);
      expect(storeSnapshot(t)).toBe(before);
    });
  });
}
