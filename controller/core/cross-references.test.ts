import { describe, expect, it } from 'vitest';
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
