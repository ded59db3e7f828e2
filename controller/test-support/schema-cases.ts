/**
 * Schema-level mutate-one-field tests (Backstage's catalog-model style) for `schemas/*.test.ts`:
 * one valid document, one changed property per case; zod must reject naming exactly that property,
 * and the generated JSON Schema (what editors and the OpenAPI document use) must reject it too.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseWith } from '../core/zod-errors.js';
import { mutated, type Body } from './validation-table.js';

export interface SchemaCase {
  label: string;
  path: string;
  value: unknown;
  property: string;
  /** JSON Schema can't express this check (e.g. URL format without ajv-formats): zod only. */
  zodOnly?: boolean;
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

export function describeSchemaCases(name: string, schema: z.ZodType, base: Body, cases: readonly SchemaCase[]): void {
  const jsonSchema = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' });
  const validate = ajv.compile(jsonSchema as object);

  describe(name, () => {
    it('accepts the base document, in zod and in the generated JSON Schema', () => {
      const parsed = parseWith(schema, base);
      expect(parsed.ok ? [] : parsed.errors).toEqual([]);
      expect(validate(base), JSON.stringify(validate.errors)).toBe(true);
    });

    it.each(cases)('$label → rejected naming $property', (c) => {
      const doc = mutated(base, c.path, c.value);
      const parsed = parseWith(schema, doc);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors.map((e) => e.property)).toEqual([c.property]);
      if (!c.zodOnly) expect(validate(doc)).toBe(false);
    });
  });
}

/** Paths of properties (recursively) whose JSON Schema has no description. */
export function undescribedProperties(schema: z.ZodType): string[] {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  const defs = (json['$defs'] ?? {}) as Record<string, Record<string, unknown>>;
  const missing: string[] = [];
  const seen = new Set<unknown>();
  const deref = (node: Record<string, unknown>): Record<string, unknown> => {
    const ref = node['$ref'];
    return typeof ref === 'string' ? (defs[ref.replace('#/$defs/', '')] ?? node) : node;
  };
  const walk = (node: unknown, path: string): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    const n = deref(node as Record<string, unknown>);
    for (const variant of [...((n['anyOf'] as unknown[]) ?? []), ...((n['oneOf'] as unknown[]) ?? [])]) walk(variant, path);
    if (n['items']) walk(n['items'], `${path}[]`);
    for (const [key, child] of Object.entries((n['properties'] ?? {}) as Record<string, Record<string, unknown>>)) {
      const resolved = deref(child);
      const described = child['description'] ?? resolved['description'] ?? ((resolved['anyOf'] as Record<string, unknown>[] | undefined) ?? []).find((v) => deref(v)['description'])?.['description'];
      if (described === undefined) missing.push(path === '' ? key : `${path}.${key}`);
      walk(child, path === '' ? key : `${path}.${key}`);
    }
  };
  walk(json, '');
  return missing;
}
