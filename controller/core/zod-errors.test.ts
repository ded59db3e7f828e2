import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { validateEntityFile } from './validate-entity.js';
import { parseWith } from './zod-errors.js';

const entry = (folder: string): EntitySchemaEntry => ENTITY_SCHEMAS.find((e) => e.folder === folder) as EntitySchemaEntry;

describe('parseWith', () => {
  it('says a missing field of any type is required, a union of JSON types included', () => {
    const schema = z.strictObject({ value: z.union([z.string(), z.number()]), name: z.string() });
    expect(parseWith(schema, {})).toEqual({
      ok: false,
      errors: [
        { property: 'value', errorMessage: 'is required' },
        { property: 'name', errorMessage: 'is required' },
      ],
    });
  });

  it('suggests the known key for a typo inside a field a schema requires (nonoptional), as elsewhere', () => {
    const item = z.strictObject({ column: z.string(), type: z.string() });
    const schema = z.strictObject({ items: z.array(item).optional() }).required();
    const parsed = parseWith(schema, { items: [{ colum: 'x', type: 't' }] });
    expect(parsed.ok ? [] : parsed.errors).toContainEqual({ property: 'items[0].colum', errorMessage: "is not a known field (did you mean 'column'?)" });
  });
});

describe('entity files', () => {
  it("a layer parameter without defaultValue: 'is required', not 'Invalid input'", () => {
    const { issues } = validateEntityFile(entry('layers'), 'layers/lay.yaml', 'lay', { id: 'lay', name: 'lay', parameters: [{ name: 'p', type: 'string' }] });
    expect(issues.map((i) => `${i.property}: ${i.message}`)).toEqual(['parameters[0].defaultValue: is required']);
  });

  it("a typo in an assignment source's idTypeMapping gets its 'did you mean'", () => {
    const data = { name: 'source', sql: 'select 1', timestampColumn: 'ts', experimentIDColumn: 'e', groupIDColumn: 'g', idTypeMapping: [{ statsigUnitID: 'userID', colum: 'uid' }] };
    const { issues } = validateEntityFile(entry('assignment_sources'), 'assignment_sources/source.yaml', 'source', data);
    expect(issues.map((i) => `${i.property}: ${i.message}`)).toEqual(['idTypeMapping[0].column: is required', "idTypeMapping[0].colum: is not a known field (did you mean 'column'?)"]);
  });
});
