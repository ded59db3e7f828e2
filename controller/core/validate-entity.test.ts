import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { withDefaults } from './validate-entity.js';

const entry = (folder: string): EntitySchemaEntry => ENTITY_SCHEMAS.find((e) => e.folder === folder) as EntitySchemaEntry;

describe('withDefaults', () => {
  it("fills every default the file leaves out, keeps the file's values, defaults first then the file's keys", () => {
    for (const kind of ENTITY_SCHEMAS) {
      const data = { [kind.idField]: 'x', name: 'X' };
      const out = withDefaults(kind, data);
      const expected = { ...kind.defaults, ...data };
      expect(out, kind.kind).toEqual(expected);
      expect(Object.keys(out), kind.kind).toEqual(Object.keys(expected));
    }
  });

  it('lets a JSON5 twin replace its pair: neither half of it is filled in', () => {
    const configs = entry('dynamic_configs');
    expect(Object.keys(configs.defaults)).toContain('defaultValue');
    const out = withDefaults(configs, { id: 'c', name: 'C', defaultValueJson5: '{a: 1}' });
    expect(out).not.toHaveProperty('defaultValue');
    expect(out['defaultValueJson5']).toBe('{a: 1}');
    const plain = withDefaults(configs, { id: 'c', name: 'C', defaultValue: { a: 1 } });
    expect(plain['defaultValue']).toEqual({ a: 1 });
    expect(plain).not.toHaveProperty('defaultValueJson5');
  });

  it('fills a default whose twin the file sets to null, and never changes the data or the defaults it read', () => {
    const configs = entry('dynamic_configs');
    const data = { id: 'c', name: 'C', defaultValueJson5: null };
    const before = structuredClone(data);
    const defaults = structuredClone(configs.defaults);
    const out = withDefaults(configs, data);
    expect(out['defaultValue']).toEqual(configs.defaults['defaultValue']);
    expect(data).toEqual(before);
    expect(configs.defaults).toEqual(defaults);
  });
});
