import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { crossReferenceIssues, referencesOf } from './cross-references.js';
import type { JsonObject, RepoEntity } from './repo-entity.js';

const entity = (folder: string, kind: string, id: string, data: JsonObject): RepoEntity => ({ folder, kind, id, file: `${folder}/${id}.yaml`, data: { id, name: id, ...data } });

/** JSON a client keeps in its own values: it looks like rules, and is only data. */
const lookalike = { conditions: [{ type: 'passes_gate', targetValue: ['no_such_gate'] }], rules: [{ environments: ['no_such_env'] }] };

describe('crossReferenceIssues', () => {
  const gate = entity('gates', 'gate', 'known_gate', {});

  it('reports a condition that names a gate no file declares, and a rule environment flagops.yaml does not list', () => {
    const config = entity('dynamic_configs', 'dynamic_config', 'dc', {
      rules: [{ name: 'r', environments: ['staging'], conditions: [{ type: 'passes_gate', targetValue: ['missing_gate'] }] }],
    });
    expect(crossReferenceIssues([gate, config], ['production'])).toEqual([
      expect.objectContaining({ file: 'dynamic_configs/dc.yaml', property: 'rules[0].conditions[0].targetValue[0]', code: 'reference' }),
      expect.objectContaining({ file: 'dynamic_configs/dc.yaml', property: 'rules[0].environments[0]', code: 'environment' }),
    ]);
  });

  it('checks every field that names an environment, in every kind, as it checks rules: the same message and suggestion', () => {
    const environments = ['production', 'staging'];
    const message = (value: string, suggestion: string): string => `names environment '${value}', which flagops.yaml does not list (production, staging); did you mean '${suggestion}'?`;
    const segment = entity('segments', 'segment', 'seg', {});
    const gateWithOverrides = entity('gates', 'gate', 'g', {
      rules: [{ name: 'r', environments: ['prodution'] }],
      overrides: { environmentOverrides: [{ environment: 'prodution', passingIDs: ['u1'] }, { environment: null, passingIDs: ['u2'] }, { environment: 'staging', passingIDs: ['u3'] }] },
    });
    const experiment = entity('experiments', 'experiment', 'exp', {
      enabledNonProdEnvironments: ['stagin'],
      overrides: [{ type: 'segment', id: 'seg', groupID: 'Control', environment: 'prodution' }],
      userIDOverrides: [{ groupID: 'Control', ids: ['u1'], environment: 'stagin' }],
    });
    const layer = entity('layers', 'layer', 'lay', { idOverrides: [{ groupName: 'Control', ids: ['u1'], environment: 'prodution' }] });
    const issues = crossReferenceIssues([segment, gateWithOverrides, experiment, layer], environments);
    expect(issues.map(({ file, property, message, code }) => ({ file, property, message, code }))).toEqual([
      { file: 'gates/g.yaml', property: 'rules[0].environments[0]', message: message('prodution', 'production'), code: 'environment' },
      { file: 'gates/g.yaml', property: 'overrides.environmentOverrides[0].environment', message: message('prodution', 'production'), code: 'environment' },
      { file: 'experiments/exp.yaml', property: 'overrides[0].environment', message: message('prodution', 'production'), code: 'environment' },
      { file: 'experiments/exp.yaml', property: 'userIDOverrides[0].environment', message: message('stagin', 'staging'), code: 'environment' },
      { file: 'experiments/exp.yaml', property: 'enabledNonProdEnvironments[0]', message: message('stagin', 'staging'), code: 'environment' },
      { file: 'layers/lay.yaml', property: 'idOverrides[0].environment', message: message('prodution', 'production'), code: 'environment' },
    ]);
    // Without an environments list in flagops.yaml, any name goes.
    expect(crossReferenceIssues([segment, gateWithOverrides, experiment, layer]).filter((i) => i.code === 'environment')).toEqual([]);
  });

  it('knows every field of every kind that names an environment (a new one must be checked above)', () => {
    const names = new Set<string>();
    const visit = (schema: unknown): void => {
      if (Array.isArray(schema)) return schema.forEach(visit);
      if (typeof schema !== 'object' || schema === null) return;
      for (const [key, value] of Object.entries(schema)) {
        if (key === 'properties' && typeof value === 'object' && value !== null) for (const name of Object.keys(value)) if (/environment/i.test(name)) names.add(name);
        visit(value);
      }
    };
    for (const entry of ENTITY_SCHEMAS) visit(z.toJSONSchema(entry.create, { unrepresentable: 'any', io: 'input' }));
    // environmentOverrides holds the gate's `environment` entries; the rest are names or lists of names.
    expect([...names].sort()).toEqual(['enabledNonProdEnvironments', 'environment', 'environmentOverrides', 'environments']);
  });

  it("leaves a layer parameter of no known type to the layer's own error instead of claiming the experiments' values mismatch it", () => {
    const layer = entity('layers', 'layer', 'lay', { parameters: [{ name: 'color', type: 'strung', defaultValue: 'blue' }, { name: 'size', type: 'number', defaultValue: 1 }] });
    const experiment = entity('experiments', 'experiment', 'exp', { layerID: 'lay', groups: [{ name: 'a', parameterValues: { color: 'red', size: 'big' } }] });
    expect(crossReferenceIssues([layer, experiment])).toEqual([
      expect.objectContaining({ file: 'experiments/exp.yaml', property: 'groups[0].parameterValues.size', message: "must be of type number, like the layer's parameter" }),
    ]);
  });

  it("warns on each allocation of a layer whose experiments ask for more than 100% (the default allocation is 100), not on one that fits", () => {
    const layer = entity('layers', 'layer', 'lay', {});
    const a = entity('experiments', 'experiment', 'a', { layerID: 'lay', allocation: 60 });
    const b = entity('experiments', 'experiment', 'b', { layerID: 'lay', allocation: 50 });
    const message = 'the experiments of layers/lay ask for 110% in all (a 60%, b 50%): the console refuses the one that passes 100%, counting those that have not concluded';
    expect(crossReferenceIssues([layer, a, b])).toEqual([
      { file: 'experiments/a.yaml', property: 'allocation', message, code: 'reference', severity: 'warning' },
      { file: 'experiments/b.yaml', property: 'allocation', message, code: 'reference', severity: 'warning' },
    ]);
    expect(crossReferenceIssues([layer, a, { ...b, data: { ...b.data, allocation: 40 } }])).toEqual([]);
    const unset = entity('experiments', 'experiment', 'c', { layerID: 'lay' });
    expect(crossReferenceIssues([layer, a, unset]).map((i) => i.message)).toEqual([expect.stringContaining('ask for 160% in all (a 60%, c 100%)'), expect.stringContaining('160%')]);
    // Experiments outside any layer share nothing.
    expect(crossReferenceIssues([entity('experiments', 'experiment', 'x', {}), entity('experiments', 'experiment', 'y', {})])).toEqual([]);
  });

  it('never reads references or environments inside default values, return values, parameter values or metadata', () => {
    const config = entity('dynamic_configs', 'dynamic_config', 'dc', {
      defaultValue: lookalike,
      rules: [{ name: 'r', returnValue: lookalike, variants: [{ name: 'v', returnValue: [lookalike] }], conditions: [{ type: 'passes_gate', targetValue: ['known_gate'] }] }],
    });
    const experiment = entity('experiments', 'experiment', 'exp', { groups: [{ name: 'control', parameterValues: { p: lookalike } }], metadata: lookalike });
    const layer = entity('layers', 'layer', 'layer', { parameters: [{ name: 'p', type: 'object', defaultValue: lookalike }] });
    expect(crossReferenceIssues([gate, config, experiment, layer], ['production'])).toEqual([]);
    expect(referencesOf(config.data)).toEqual([{ property: 'rules[0].conditions[0].targetValue[0]', folder: 'gates', id: 'known_gate' }]);
  });
});
