import { fileURLToPath } from 'node:url';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IssueCode } from '../core/repo-entity.js';
import { FsRepoReader } from './fs-repo-reader.js';
import { loadRepo } from './load-repo.js';

const FIXTURES = fileURLToPath(new URL('./__fixtures__/invalid/', import.meta.url));

type Expected = [file: string, line: number, property: string, code: IssueCode, message?: RegExp, severity?: 'error' | 'warning'];

/**
 * One fixture repository per validation error (controller/source/__fixtures__/invalid/<case>/):
 * every diagnostic it yields, with its file, line and property.
 */
const CASES: Record<string, Expected[]> = {
  'yaml-syntax': [
    ['gates/broken.yaml', 5, '', 'yaml', /Flow map/],
    ['gates/broken.yaml', 5, '', 'yaml', /Flow sequence/],
  ],
  'drift-directive': [['gates/hand_made.yaml', 1, '', 'repo-config', /drift directive 'ignore' must be one of detect, heal, adopt/]],
  'yaml-duplicate-key': [['gates/dup_key.yaml', 3, 'name', 'yaml', /^duplicate key: already set at 2:1$/]],
  'not-a-mapping': [['gates/listy.yaml', 1, '', 'not-a-mapping', /is not a YAML mapping/]],
  'empty-file': [['gates/empty.yaml', 1, '', 'not-a-mapping', /is empty/]],
  'unknown-field': [['gates/typo.yaml', 3, 'descripton', 'unknown-field', /did you mean 'description'/]],
  'unknown-nested-field': [
    ['gates/nested.yaml', 4, 'rules[0].conditions', 'schema', /is required/],
    ['gates/nested.yaml', 6, 'rules[0].conditons', 'unknown-field', /did you mean 'conditions'/],
  ],
  'server-field': [
    ['gates/stamped.yaml', 3, 'version', 'server-field', /managed by the console/],
    ['gates/stamped.yaml', 4, 'lastModifiedTime', 'server-field'],
  ],
  'response-only-field': [['gates/launched.yaml', 3, 'status', 'server-field']],
  'schema-range': [['gates/too_much.yaml', 5, 'rules[0].passPercentage', 'schema', /between 0 and 100/]],
  'schema-type': [['gates/wrong_type.yaml', 3, 'isEnabled', 'schema', /boolean/]],
  'schema-enum': [['gates/bad_enum.yaml', 3, 'type', 'schema', /PERMANENT/]],
  'schema-name-charset': [['gates/bad_name.yaml', 2, 'name', 'schema', /may contain only/]],
  'schema-required': [['segments/no_type.yaml', 1, 'type', 'schema', /is required/]],
  'missing-id': [['gates/anonymous.yaml', 1, 'id', 'id-mismatch', /is required.*id: anonymous/]],
  'id-mismatch': [['gates/file_name.yaml', 1, 'id', 'id-mismatch', /must equal the file name/]],
  'prompt-name-mismatch': [['prompts/support_bot.yaml', 1, 'name', 'id-mismatch']],
  'duplicate-id': [['gates/twice.yml', 1, 'id', 'duplicate-id', /duplicates gates\/twice\.yaml/]],
  'duplicate-rule-names': [['gates/rules_twice.yaml', 7, 'rules[1].name', 'rule', /must be unique/]],
  'segment-id-list-with-rules': [['segments/mixed.yaml', 6, 'rules', 'rule', /id_list/]],
  // A JSON5 error is placed inside the block: line and column of the offending character.
  'json5-invalid': [['dynamic_configs/bad_json5.yaml', 4, 'defaultValueJson5', 'rule', /not valid JSON5/]],
  'json5-twin-mismatch': [['dynamic_configs/twins.yaml', 5, 'defaultValueJson5', 'rule', /same JSON as defaultValue/]],
  'config-schema-invalid': [['dynamic_configs/bad_schema.yaml', 3, 'schemaJson5', 'rule', /not a valid JSON Schema/]],
  'config-default-against-schema': [['dynamic_configs/limits.yaml', 6, 'defaultValue', 'rule', /\/max must be integer/]],
  'config-rule-against-schema': [['dynamic_configs/rule_value.yaml', 11, 'rules[0].returnValue', 'rule', /rule 'big'.*required property 'max'/]],
  'config-variant-against-schema': [['dynamic_configs/variant_value.yaml', 15, 'rules[0].variants[1].returnValue', 'rule', /\/n must be number/]],
  'experiment-group-sizes': [['experiments/sizes.yaml', 4, 'groups', 'rule', /sum to 100 \(they sum to 90\)/]],
  'experiment-control-group': [['experiments/control.yaml', 3, 'controlGroupID', 'rule']],
  'layer-parameter-type': [['layers/typed.yaml', 6, 'parameters[0].defaultValue', 'rule', /type number/]],
  'holdout-duplicate-ids': [['holdouts/dups.yaml', 4, 'gateIDs[1]', 'rule', /duplicates gateIDs\[0\]/]],
  'holdout-percentage': [['holdouts/big.yaml', 3, 'passPercentage', 'schema', /between 0 and 10/]],
  'assignment-source-mapping': [['assignment_sources/src.yaml', 9, 'idTypeMapping[1].statsigUnitID', 'rule']],
  'reference-segment': [['gates/uses_segment.yaml', 8, 'rules[0].conditions[0].targetValue[0]', 'reference', /segments\/staf.*did you mean 'staff'/]],
  'reference-gate': [['dynamic_configs/uses_gate.yaml', 8, 'rules[0].conditions[0].targetValue', 'reference', /gates\/missing_gate/]],
  'reference-experiment-fields': [
    ['experiments/refs.yaml', 3, 'layerID', 'reference', /layers\/no_layer/],
    ['experiments/refs.yaml', 4, 'targetingGateID', 'reference', /gates\/no_gate/],
    ['experiments/refs.yaml', 5, 'assignmentSourceName', 'reference', /assignment_sources\/no_source/],
  ],
  'reference-holdout-fields': [
    ['holdouts/refs.yaml', 4, 'gateIDs[0]', 'reference'],
    ['holdouts/refs.yaml', 5, 'experimentIDs[0]', 'reference'],
    ['holdouts/refs.yaml', 6, 'layerIDs[0]', 'reference'],
  ],
  'reference-inline-targeting': [['experiments/inline.yaml', 8, 'inlineTargetingRules[0].conditions[0].targetValue[0]', 'reference']],
  'holdout-id-type': [['holdouts/users.yaml', 4, 'gateIDs[0]', 'reference', /idType 'stableID'/]],
  'experiment-layer-parameters': [
    ['experiments/in_layer.yaml', 4, 'idType', 'reference', /idType of layers\/lay/],
    ['experiments/in_layer.yaml', 8, 'groups[0].parameterValues.color', 'reference', /type string/],
    ['experiments/in_layer.yaml', 11, 'groups[1].parameterValues.colour', 'reference', /not a parameter/],
  ],
  'environment-unknown': [['gates/envs.yaml', 7, 'rules[0].environments[0]', 'environment', /did you mean 'production'/]],
  'repo-config-unknown-key': [['flagops.yaml', 3, 'console.apiKeyenv', 'repo-config', /did you mean 'apiKeyEnv'/]],
  'repo-config-drift-entities': [
    ['flagops.yaml', 3, 'drift.entities.gate/abc', 'repo-config', /names the folder 'gate', which is no kind folder \(did you mean 'gates'\?\)/],
    ['flagops.yaml', 4, 'drift.entities.gates/abd', 'repo-config', /names gates\/abd, which no file of the repository declares: the policy applies to nothing \(did you mean 'gates\/abc'\?\)/, 'warning'],
    ['flagops.yaml', 6, 'drift.entities.gates/nothing_like_it', 'repo-config', /which no file of the repository declares: the policy applies to nothing$/, 'warning'],
  ],
  'repo-config-ownership': [
    ['flagops.yaml', 5, 'ownership.console.dynamic_configs[0]', 'repo-config', /^'isEnabld' is no field of a dynamic_config \(did you mean 'isEnabled'\?\)$/],
    ['flagops.yaml', 6, 'ownership.console.dynamic_configs[1]', 'repo-config', /^rules is a list: write rules\[\*\] for each of its items$/],
    ['flagops.yaml', 7, 'ownership.console.dynamic_configs[2]', 'repo-config', /^rules\[\*\]\.returnValue holds a value, not fields: own rules\[\*\]\.returnValue whole$/],
    ['flagops.yaml', 8, 'ownership.console.gate/kill_switch', 'repo-config', /names the folder 'gate', which is no kind folder \(did you mean 'gates'\?\)/],
    ['flagops.yaml', 9, 'ownership.console.gates/kill_swich', 'repo-config', /names gates\/kill_swich, which no file of the repository declares: it owns nothing \(did you mean 'gates\/kill_switch'\?\)/, 'warning'],
    ['flagops.yaml', 10, 'ownership.console.gates/kill_switch[0]', 'repo-config', /'id' is flagops' to write/],
    ['flagops.yaml', 10, 'ownership.console.gates/kill_switch[1]', 'repo-config', /^isEnabled is not a list: leave out \[\*\]$/],
  ],
  'repo-config-ownership-syntax': [['flagops.yaml', 5, 'ownership.console.gates[1]', 'repo-config', /must be a field path such as isEnabled or rules\[\*\]\.passPercentage/]],
  'repo-config-bad-value': [
    ['flagops.yaml', 2, 'prune.maxDeletes', 'repo-config'],
    ['flagops.yaml', 4, 'drift.default', 'repo-config'],
  ],
  'file-warnings': [
    ['gate/', 1, '', 'file', /did you mean 'gates\/'/],
    ['gates/archive/', 1, '', 'file'],
    ['gates/notes.json', 1, '', 'file'],
  ],
};

describe('flagops validate fixtures', () => {
  it('has a case for every fixture directory and a fixture for every case', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual(Object.keys(CASES).sort());
  });

  for (const [name, expected] of Object.entries(CASES)) {
    it(name, async () => {
      const repo = await loadRepo(new FsRepoReader(`${FIXTURES}${name}`));
      expect(repo.diagnostics.map((d) => [d.file, d.line, d.property, d.code])).toEqual(expected.map(([file, line, property, code]) => [file, line, property, code]));
      repo.diagnostics.forEach((d, i) => {
        const pattern = expected[i]?.[4];
        if (pattern) expect(d.message).toMatch(pattern);
        if (name === 'json5-invalid') expect(d.column).toBe(10);
        expect(d.column).toBeGreaterThanOrEqual(1);
        expect(d.severity).toBe(expected[i]?.[5] ?? (name === 'file-warnings' ? 'warning' : 'error'));
      });
    });
  }

  it('reports every error of a repository in one run', async () => {
    // Several broken files side by side: nothing stops at the first error.
    const combined = ['unknown-field', 'server-field', 'schema-range', 'json5-invalid', 'experiment-group-sizes', 'reference-experiment-fields', 'holdout-percentage'];
    const dir = mkdtempSync(join(tmpdir(), 'flagops-many-'));
    try {
      for (const name of combined) cpSync(`${FIXTURES}${name}`, dir, { recursive: true });
      const repo = await loadRepo(new FsRepoReader(dir));
      const expected = combined.flatMap((name) => (CASES[name] ?? []).map(([file, line, property]) => `${file}:${line} ${property}`));
      expect(repo.diagnostics.map((d) => `${d.file}:${d.line} ${d.property}`).sort()).toEqual(expected.sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
