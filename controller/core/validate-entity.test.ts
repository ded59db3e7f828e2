import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { fillerOf, interpretedFiller, validateEntityFile, withDefaults } from './validate-entity.js';
import { MAX_JSON_DEPTH } from '../../schemas/json-tree-problem.js';

const entry = (folder: string): EntitySchemaEntry => ENTITY_SCHEMAS.find((e) => e.folder === folder) as EntitySchemaEntry;

describe('withDefaults', () => {
  it('fills as the interpreted filler does, for every kind, with each twin set, null or left out', () => {
    for (const kind of ENTITY_SCHEMAS) {
      const compiled = fillerOf(kind);
      const reference = interpretedFiller(kind);
      const datas: Record<string, unknown>[] = [{}];
      for (const key of Object.keys(kind.defaults)) {
        const twin = key.endsWith('Json5') ? key.slice(0, -'Json5'.length) : `${key}Json5`;
        datas.push({ [twin]: 'x' }, { [twin]: null }, { [key]: 1 });
      }
      for (const data of datas) {
        const out = compiled(data);
        expect(out, kind.kind).toEqual(reference(data));
        expect(Object.keys(out), kind.kind).toEqual(Object.keys(reference(data)));
      }
    }
  });

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

describe('validateEntityFile: JSON5 text nests no deeper than a body may', () => {
  const dynamicConfigs = ENTITY_SCHEMAS.find((e) => e.kind === 'dynamic_config') as EntitySchemaEntry;
  // defaultValueJson5 sits at level 2 of the file: its value's root takes that level.
  const nested = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
  const file = (levels: number) => ({ id: 'deep_config', defaultValueJson5: nested(levels) });

  it('accepts a JSON5 value that ends at the limit where it is placed', () => {
    const { issues } = validateEntityFile(dynamicConfigs, 'dynamic_configs/deep_config.yaml', 'deep_config', file(MAX_JSON_DEPTH - 1));
    expect(issues.filter((i) => i.property === 'defaultValueJson5')).toEqual([]);
  });

  it('refuses one level more, naming the field, as the console would refuse the body', () => {
    const { issues } = validateEntityFile(dynamicConfigs, 'dynamic_configs/deep_config.yaml', 'deep_config', file(MAX_JSON_DEPTH));
    expect(issues).toContainEqual(expect.objectContaining({ property: 'defaultValueJson5', severity: 'error', message: expect.stringContaining(`deeper than ${MAX_JSON_DEPTH} levels`) }));
  });
});

describe('validateEntityFile: the NUL character and lone surrogates', () => {
  it('are refused in a string or a key, naming where, as the console refuses the body', () => {
    const gates = entry('gates');
    const { issues } = validateEntityFile(gates, 'gates/g.yaml', 'g', { id: 'g', name: 'g', description: 'a\u0000b' });
    expect(issues).toContainEqual(expect.objectContaining({ property: 'description', severity: 'error', message: 'contains the NUL character (U+0000), which is refused' }));
    const configs = entry('dynamic_configs');
    const keyed = validateEntityFile(configs, 'dynamic_configs/c.yaml', 'c', { id: 'c', name: 'c', defaultValue: { list: ['ok', 'x\u0000'] } });
    expect(keyed.issues).toContainEqual(expect.objectContaining({ property: 'defaultValue.list[1]', severity: 'error' }));
    const surrogate = validateEntityFile(gates, 'gates/g.yaml', 'g', { id: 'g', name: 'g', description: 'half \ud800' });
    expect(surrogate.issues).toContainEqual(expect.objectContaining({ property: 'description', severity: 'error', message: expect.stringContaining('lone surrogate') }));
  });
});
