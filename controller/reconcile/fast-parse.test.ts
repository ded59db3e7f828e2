import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { entityFileSchema } from '../../schemas/entity-file.js';
import { ALL_KINDS } from '../console/kinds/all-kinds.js';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { JsonObjectSchema } from '../../schemas/json-value.js';
import { fastParser, UNSURE } from '../core/fast-parse.js';
import type { JsonObject } from '../core/repo-entity.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { loadRepo } from '../source/load-repo.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/config-repo', import.meta.url));

const REPLACEMENTS: unknown[] = [null, undefined, [], {}, '', 'x', 'x'.repeat(5000), false, true, 0, -1, 1.5, 2 ** 60, Infinity, NaN, ['x'], [1], [null], { a: 1 }, { a: Infinity }];

/** The entity with one thing changed at any depth: a key removed, replaced by each of REPLACEMENTS, or added. */
function* mutations(data: JsonObject): Generator<unknown> {
  const copy = structuredClone(data);
  const containers: (JsonObject | unknown[])[] = [];
  const collect = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    containers.push(value as JsonObject | unknown[]);
    Object.values(value).forEach(collect);
  };
  collect(copy);
  for (const container of containers) {
    const record = container as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const saved = record[key];
      if (!Array.isArray(container)) {
        delete record[key];
        yield structuredClone(copy);
      }
      for (const replacement of REPLACEMENTS) {
        record[key] = replacement;
        // structuredClone keeps an own undefined, as a parser never makes one but a caller might.
        yield structuredClone(copy);
      }
      record[key] = saved;
    }
    if (!Array.isArray(container)) {
      for (const [key, value] of [['unknownKey', 1], ['__proto__', {}], ['constructor', 'x']] as const) {
        Object.defineProperty(container, key, { value, enumerable: true, configurable: true, writable: true });
        yield structuredClone(copy);
        delete (container as Record<string, unknown>)[key];
      }
    }
  }
}

function expectAgreement(schema: z.ZodType, value: unknown): boolean {
  const fast = fastParser(schema)(value);
  const parsed = schema.safeParse(value);
  if (fast === UNSURE) return false;
  // Sure means valid, with zod's very output: the same values in the same key order.
  expect(parsed.success).toBe(true);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
  return true;
}

describe('fastParser', () => {
  it('answers for every example entity with zod’s output, and for a changed one only when zod accepts it, with zod’s output', async () => {
    const repo = await loadRepo(new FsRepoReader(EXAMPLE));
    expect(repo.entities.length).toBeGreaterThan(10);
    let sure = 0;
    let total = 0;
    for (const entity of repo.entities) {
      const entry = ENTITY_SCHEMAS.find((e) => e.folder === entity.folder);
      if (!entry) throw new Error(entity.folder);
      const schema = entityFileSchema(entry);
      expect(expectAgreement(schema, entity.data)).toBe(true);
      for (const value of mutations(entity.data)) {
        total++;
        if (expectAgreement(schema, value)) sure++;
      }
    }
    // Most one-thing changes make an invalid entity; the valid ones it is sure of are many.
    expect(total).toBeGreaterThan(5000);
    expect(sure).toBeGreaterThan(100);
  });

  it('agrees with zod on the console’s request schemas: each example entity as a create and an update, each of its fields as a patch, and their one-thing changes', async () => {
    const repo = await loadRepo(new FsRepoReader(EXAMPLE));
    let sure = 0;
    for (const entity of repo.entities) {
      const kind = ALL_KINDS.find((k) => k.kind === entity.kind);
      if (!kind) throw new Error(entity.kind);
      const { create, update, patch } = kind.schemas;
      const bodies: [z.ZodType | undefined, unknown][] = [
        [create, entity.data],
        [update, entity.data],
        ...Object.entries(entity.data).map(([key, value]): [z.ZodType | undefined, unknown] => [patch, { [key]: value }]),
      ];
      for (const [schema, body] of bodies) {
        if (!schema) continue;
        if (expectAgreement(schema, body)) sure++;
        for (const value of mutations(body as JsonObject)) if (expectAgreement(schema, value)) sure++;
      }
    }
    expect(sure).toBeGreaterThan(500);
  });

  it.each([
    ['a default to fill in', z.strictObject({ a: z.array(z.string()).default([]) }), {}],
    ['an optional wrapping a default', z.strictObject({ a: z.string().default('x').optional() }), {}],
    ['keys zod strips', z.object({ a: z.string() }), { a: 'x', b: 1 }],
    ['an own undefined', z.strictObject({ a: z.string().optional() }), { a: undefined }],
    ['a transform', z.string().transform((s) => s.length), 'abc'],
    ['a refinement', z.string().refine((s) => s !== 'x'), 'y'],
    ['a string format', z.email(), 'a@example.com'],
    ['a string format as a check', z.string().check(z.email()), 'a@example.com'],
    ['a trimmed string', z.string().trim(), 'a'],
    ['a number format other than a safe integer', z.int32(), 1],
    ['a union of overlapping options', z.union([z.string(), z.string().min(2)]), 'abc'],
    ['a numeric enum', z.enum({ A: 0, B: 1 }), 0],
    ['a key objects inherit', z.strictObject({ toString: z.string().optional() }), {}],
  ])('gives way to zod on %s', (_, schema, value) => {
    expect(fastParser(schema)(value)).toBe(UNSURE);
  });

  it('checks a safe integer as z.int() and .int() do', () => {
    for (const schema of [z.int(), z.number().int()]) {
      expect(fastParser(schema)(3)).toBe(3);
      expect(fastParser(schema)(1.5)).toBe(UNSURE);
      expect(fastParser(schema)(2 ** 60)).toBe(UNSURE);
    }
  });

  it('checks JSON values for Infinity and NaN as JsonObjectSchema does', () => {
    const schema = z.strictObject({ value: JsonObjectSchema.optional() });
    expect(fastParser(schema)({ value: { a: [1, { b: 2 }] } })).toEqual({ value: { a: [1, { b: 2 }] } });
    expect(fastParser(schema)({ value: { a: [1, { b: Infinity }] } })).toBe(UNSURE);
    expect(schema.safeParse({ value: { a: [1, { b: Infinity }] } }).success).toBe(false);
  });

  it('parses recursive schemas', () => {
    type Tree = { name: string; children?: Tree[] };
    const Tree: z.ZodType<Tree> = z.strictObject({ name: z.string(), get children() { return z.array(Tree).optional(); } });
    const value = { name: 'a', children: [{ name: 'b', children: [] }] };
    expect(fastParser(Tree)(value)).toEqual(value);
    expect(fastParser(Tree)({ name: 'a', children: [{ name: 1 }] })).toBe(UNSURE);
  });
});
