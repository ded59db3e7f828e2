import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { canonicalReference, exportable, normalizeEntity, normalizeLive } from './normalize.js';

const entry = (folder: string): EntitySchemaEntry => ENTITY_SCHEMAS.find((e) => e.folder === folder) as EntitySchemaEntry;
const gates = entry('gates');
const configs = entry('dynamic_configs');

describe('normalizeEntity', () => {
  it('fills defaults and orders keys like the schema, id first', () => {
    const out = normalizeEntity(gates, { name: 'G', id: 'g' });
    expect(Object.keys(out).slice(0, 4)).toEqual(['id', 'name', 'description', 'isEnabled']);
    expect(out).toMatchObject({ isEnabled: true, rules: [], type: 'PERMANENT' });
  });

  it('drops server fields and response-only fields, also inside rules', () => {
    const live = { id: 'g', name: 'G', version: 3, status: 'Launched', permalink: 'x', rules: [{ name: 'r', passPercentage: 1, conditions: [], pendingAutomatedRollouts: [] }] };
    const out = normalizeEntity(gates, live);
    expect(out).not.toHaveProperty('version');
    expect(out).not.toHaveProperty('status');
    expect(out['rules']).toEqual([{ name: 'r', passPercentage: 1, conditions: [] }]);
  });

  it('leaves a value to its JSON5 twin, on both sides', () => {
    const file = normalizeEntity(configs, { id: 'c', name: 'C', defaultValueJson5: '{a: 1}' });
    const live = normalizeEntity(configs, { id: 'c', name: 'C', defaultValueJson5: '{a: 1}', defaultValue: { a: 1 } });
    expect(file).toEqual(live);
    expect(file).not.toHaveProperty('defaultValue');
  });

  it('does not touch keys inside JSON values', () => {
    const out = normalizeEntity(configs, { id: 'c', name: 'C', defaultValue: { x: 1, xJson5: '{}', nothing: null } });
    expect(out['defaultValue']).toEqual({ x: 1, xJson5: '{}', nothing: null });
  });

  it('treats null inside declared objects as not set', () => {
    const a = normalizeEntity(gates, { id: 'g', name: 'G', rules: [{ name: 'r', passPercentage: 1, conditions: [{ type: 'public', operator: null }] }] });
    const b = normalizeEntity(gates, { id: 'g', name: 'G', rules: [{ name: 'r', passPercentage: 1, conditions: [{ type: 'public' }] }] });
    expect(a).toEqual(b);
  });

  it("reads a group's empty parameterValues (the console's answer for none) as not set, on both forms", () => {
    const experiments = entry('experiments');
    const groups = (extra: object) => [
      { name: 'control', size: 50, ...extra },
      { name: 'test', size: 50, parameterValues: { color: 'red' } },
    ];
    const file = { id: 'e', name: 'E', groups: groups({}) };
    const read = { id: 'e', name: 'E', groups: groups({ parameterValues: {} }) };
    expect(normalizeEntity(experiments, read)).toEqual(normalizeEntity(experiments, file));
    expect(canonicalReference(experiments, read, undefined)).toEqual(canonicalReference(experiments, file, undefined));
    // Values that are set still count.
    expect(normalizeEntity(experiments, { ...file, groups: groups({ parameterValues: { color: 'blue' } }) })).not.toEqual(normalizeEntity(experiments, file));
  });
});

describe('normalizeLive', () => {
  it('ignores generated rule ids and the creator stamp where the file is silent', () => {
    const desired = normalizeEntity(gates, { id: 'g', name: 'G', rules: [{ name: 'r', passPercentage: 1, conditions: [] }] });
    const live = normalizeLive(gates, { id: 'g', name: 'G', creatorID: 'a@b', creatorEmail: 'a@b', rules: [{ id: 'x1', baseID: 'x1', name: 'r', passPercentage: 1, conditions: [] }] }, desired);
    expect(live).toEqual(desired);
  });

  it('keeps rule ids the file sets, so a changed id shows', () => {
    const desired = normalizeEntity(gates, { id: 'g', name: 'G', rules: [{ id: 'mine', name: 'r', passPercentage: 1, conditions: [] }] });
    const live = normalizeLive(gates, { id: 'g', name: 'G', rules: [{ id: 'x1', baseID: 'x1', name: 'r', passPercentage: 1, conditions: [] }] }, desired);
    expect((live['rules'] as { id: string }[])[0]?.id).toBe('x1');
  });
});

describe('exportable', () => {
  it('leaves out defaults, generated ids, the creator stamp and derived values', () => {
    const live = { id: 'c', name: 'C', isEnabled: true, creatorID: 'a@b', defaultValue: { a: 1 }, defaultValueJson5: '{a: 1 /* one */}', rules: [{ id: 'x', baseID: 'x', name: 'r', passPercentage: 5, conditions: [] }], version: 2 };
    expect(exportable(configs, live)).toEqual({ id: 'c', name: 'C', rules: [{ name: 'r', passPercentage: 5, conditions: [] }], defaultValueJson5: '{a: 1 /* one */}' });
  });
});
