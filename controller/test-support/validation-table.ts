/**
 * Mutate-one-field validation tables (Backstage's catalog-model style), for every entity kind: start
 * from one valid body per write, change one property per case, and check that the console answers 400
 * naming exactly that property and that the store (every kind's entities, versions, audit log) is
 * unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_KINDS } from '../console/kinds/all-kinds.js';
import { createTestConsole, type TestConsole } from './test-console.js';

export type WriteOp = 'create' | 'update' | 'patch';
export type Body = Record<string, unknown>;

/** Value of a case that removes the property instead of setting it. */
export const REMOVE = Symbol('remove');

export interface MutationCase {
  label: string;
  /** Dotted path into the body; numbers index arrays: `rules.0.passPercentage`. */
  path: string;
  value: unknown;
  /** The property the error must name, as the API spells it: `rules[0].passPercentage`. */
  property: string;
  /** Writes the case applies to; all three when absent. */
  ops?: readonly WriteOp[];
  /** When given, the error message must match. */
  message?: RegExp;
}

/** A deep copy of body with one property set (or removed). */
export function mutated(body: Body, path: string, value: unknown): Body {
  const copy = structuredClone(body);
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  let target: Record<string, unknown> = copy;
  for (const part of parts) {
    const next = target[part];
    if (next === null || typeof next !== 'object') throw new Error(`test table: ${path} does not exist in the base body`);
    target = next as Record<string, unknown>;
  }
  if (value === REMOVE) {
    if (Array.isArray(target)) target.splice(Number(last), 1);
    else delete target[last];
  } else target[last] = structuredClone(value);
  return copy;
}

/**
 * Everything a rejected request must leave alone, as one comparable string: every entity of every
 * kind, their version histories and the audit log.
 */
export async function storeSnapshot(t: TestConsole): Promise<string> {
  const kinds = ALL_KINDS.map((k) => k.kind);
  const { entities, audit } = t.store;
  const lists = await Promise.all(kinds.map((k) => entities.list(k)));
  const versions = await Promise.all(kinds.flatMap((k, i) => (lists[i] ?? []).map((r) => entities.versions(k, r.id, 0, 1000))));
  return JSON.stringify({ entities: lists, versions, audit: await audit.list({ offset: 0, limit: 1000 }) });
}

export interface ValidationTable {
  /** List/create path under /console/v1: gates, experiments, experiments/assignment_sources, ... */
  listPath: string;
  /** Item path when it differs from listPath: experiments/assignment_source. */
  itemPath?: string;
  /** Creates whatever the cases need, including the entity `existingId` that updates and patches target. */
  seed(t: TestConsole): Promise<void>;
  existingId: string;
  /** One valid body per write the kind supports. The create body must name an entity that does not exist yet. */
  bodies: Partial<Record<WriteOp, Body>>;
  cases: readonly MutationCase[];
}

function request(table: ValidationTable, op: WriteOp): { method: string; url: string } {
  if (op === 'create') return { method: 'POST', url: `/console/v1/${table.listPath}` };
  return { method: op === 'update' ? 'POST' : 'PATCH', url: `/console/v1/${table.itemPath ?? table.listPath}/${encodeURIComponent(table.existingId)}` };
}

/**
 * Per write the table has a body for: one test that the base body is accepted (on a fresh, seeded
 * console, so the cases' console never changes), and one per case that applies.
 */
export function describeValidationTable(table: ValidationTable): void {
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
      const before = await storeSnapshot(t);
      const res = await t.call(method, url, mutated(base, c.path, c.value));
      expect(res.statusCode, res.body).toBe(400);
      const body = res.json() as { status: number; errors?: { property: string; errorMessage: string }[] };
      expect(body.status).toBe(400);
      expect(body.errors?.map((e) => e.property), res.body).toEqual([c.property]);
      if (c.message) expect(body.errors?.[0]?.errorMessage).toMatch(c.message);
      expect(await storeSnapshot(t)).toBe(before);
    });
  });
}
