import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/**
 * core/fast-parse.ts reads zod's internal definitions, which zod does not promise to keep: package.json
 * pins zod to one exact version, and this test asserts every shape fast-parse reads, so the first zod
 * release that changes one of them fails here instead of making the fast path answer wrongly.
 */
const def = (schema: z.ZodType): Record<string, unknown> => (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
const checkDef = (schema: z.ZodType, i = 0): Record<string, unknown> => (def(schema)['checks'] as { _zod: { def: Record<string, unknown> } }[])[i]?._zod.def ?? {};
const internals = (schema: z.ZodType): { optin?: unknown; optout?: unknown } => (schema as unknown as { _zod: { optin?: unknown; optout?: unknown } })._zod;

describe("zod's internals that fast-parse reads", () => {
  it('is the exact zod version package.json pins', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    const require = createRequire(import.meta.url);
    const installed = (JSON.parse(readFileSync(require.resolve('zod/package.json'), 'utf8')) as { version: string }).version;
    expect(pkg.dependencies['zod']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed).toBe(pkg.dependencies['zod']);
  });

  it('names each type in def.type', () => {
    expect(def(z.string()).type).toBe('string');
    expect(def(z.number()).type).toBe('number');
    expect(def(z.boolean()).type).toBe('boolean');
    expect(def(z.null()).type).toBe('null');
    expect(def(z.unknown()).type).toBe('unknown');
    expect(def(z.any()).type).toBe('any');
    expect(def(z.never()).type).toBe('never');
  });

  it('keeps enums in def.entries and literals in def.values', () => {
    expect(def(z.enum(['a', 'b']))).toMatchObject({ type: 'enum', entries: { a: 'a', b: 'b' } });
    expect(def(z.literal('x'))).toMatchObject({ type: 'literal', values: ['x'] });
  });

  it('wraps in def.innerType', () => {
    const inner = z.string();
    for (const wrapped of [inner.optional(), inner.nullable(), inner.default('x'), inner.optional().nonoptional()]) {
      expect(['optional', 'nullable', 'default', 'nonoptional']).toContain(def(wrapped).type);
    }
    expect(def(inner.optional()).innerType).toBe(inner);
    expect(def(inner.nullable()).innerType).toBe(inner);
    expect(def(inner.default('x')).innerType).toBe(inner);
    expect(def(inner.optional().nonoptional()).type).toBe('nonoptional');
  });

  it('keeps arrays, records, objects and unions in element, keyType/valueType, shape/catchall and options', () => {
    const element = z.number();
    expect(def(z.array(element))).toMatchObject({ type: 'array', element });
    const keyType = z.string();
    const valueType = z.boolean();
    expect(def(z.record(keyType, valueType))).toMatchObject({ type: 'record', keyType, valueType });
    const field = z.string();
    expect(def(z.object({ field }))).toMatchObject({ type: 'object', shape: { field } });
    expect(def(z.object({ field })).catchall).toBeUndefined();
    expect(def(def(z.strictObject({ field })).catchall as z.ZodType).type).toBe('never');
    expect(def(def(z.looseObject({ field })).catchall as z.ZodType).type).toBe('unknown');
    const options = [z.string(), z.number()];
    expect(def(z.union(options))).toMatchObject({ type: 'union', options });
  });

  it('marks coercion, and checks that are schemas of their own, in def.coerce, def.check and def.format', () => {
    expect(def(z.coerce.number()).coerce).toBe(true);
    expect(def(z.int())).toMatchObject({ type: 'number', check: 'number_format', format: 'safeint' });
    expect(def(z.email())).toMatchObject({ type: 'string', check: 'string_format', format: 'email' });
    expect(def(z.string()).check).toBeUndefined();
    expect(def(z.string()).format).toBeUndefined();
  });

  it('describes checks in checks[i]._zod.def, with the one `when` of every length check', () => {
    expect(checkDef(z.string().min(2))).toMatchObject({ check: 'min_length', minimum: 2 });
    expect(checkDef(z.string().max(3))).toMatchObject({ check: 'max_length', maximum: 3 });
    expect(checkDef(z.string().length(4))).toMatchObject({ check: 'length_equals', length: 4 });
    expect(checkDef(z.array(z.string()).min(1))).toMatchObject({ check: 'min_length', minimum: 1 });
    expect(checkDef(z.number().min(1))).toMatchObject({ check: 'greater_than', value: 1, inclusive: true });
    expect(checkDef(z.number().gt(1))).toMatchObject({ check: 'greater_than', value: 1, inclusive: false });
    expect(checkDef(z.number().max(9))).toMatchObject({ check: 'less_than', value: 9, inclusive: true });
    expect(checkDef(z.number().lt(9))).toMatchObject({ check: 'less_than', value: 9, inclusive: false });
    expect(checkDef(z.number().int())).toMatchObject({ check: 'number_format', format: 'safeint' });
    const pattern = /^a+$/;
    expect(checkDef(z.string().regex(pattern))).toMatchObject({ check: 'string_format', format: 'regex', pattern });
    // fast-parse takes `when` to mean "the value has a length" only when it is this very function.
    const when = checkDef(z.string().min(1)).when;
    expect(typeof when).toBe('function');
    for (const schema of [z.string().max(3), z.string().length(2), z.array(z.number()).min(1), z.array(z.number()).max(2)]) expect(checkDef(schema).when).toBe(when);
    expect(checkDef(z.number().min(1)).when).toBeUndefined();
    expect(checkDef(z.string().regex(pattern)).when).toBeUndefined();
  });

  it('says in optin/optout whether an absent key stays absent', () => {
    expect(internals(z.string().optional())).toMatchObject({ optin: 'optional', optout: 'optional' });
    expect(internals(z.string().optional().nullable())).toMatchObject({ optin: 'optional', optout: 'optional' });
    // A default fills the key in: never "optional" on both sides, so the fast path gives way to zod.
    for (const schema of [z.string().default('x'), z.string().optional().default('x')]) {
      expect(internals(schema).optin).toBe('defaulted');
      expect(internals(schema).optout).toBeUndefined();
    }
    expect(internals(z.string()).optin).toBeUndefined();
    expect(internals(z.string()).optout).toBeUndefined();
  });
});
