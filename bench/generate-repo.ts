import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A generated config repository for the benchmarks: gates, segments, dynamic configs with JSON5 blocks
 * and schemas, layers, experiments, holdouts and prompts, in the shares of MIX, every reference valid.
 */

/** Shares of the kinds in a generated repository (the rest are gates). */
const MIX = { segments: 0.1, dynamic_configs: 0.35, layers: 0.01, experiments: 0.05, holdouts: 0.01, prompts: 0.03 } as const;

const modeline = (kind: string): string => `# yaml-language-server: $schema=../schemas/${kind}.schema.json\n`;

function segmentYaml(i: number): string {
  if (i % 4 === 0) return `${modeline('segment')}id: segment_${i}\nname: Segment ${i}\ntype: id_list\ntags: [flagops-managed]\nids: [u${i}_1, u${i}_2, u${i}_3]\n`;
  return `${modeline('segment')}id: segment_${i}
name: Segment ${i}
description: Customers of market ${i % 40}.
type: rule_based
tags: [flagops-managed, team-${i % 12}]
rules:
  - name: market
    passPercentage: 100
    conditions:
      - type: custom_field
        field: market
        operator: any
        targetValue: [m${i % 40}, m${(i + 1) % 40}]
`;
}

function gateYaml(i: number, segments: number): string {
  return `${modeline('gate')}id: gate_${i}
name: Gate ${i}
description: Rollout ${i} of the web shop.
type: ${i % 3 === 0 ? 'PERMANENT' : 'TEMPORARY'}
tags: [flagops-managed, team-${i % 12}]
rules:
  - name: segment
    passPercentage: 100
    conditions:
      - type: passes_segment
        targetValue: [segment_${i % segments}]
  - name: rollout
    passPercentage: ${(i * 7) % 100}
    conditions:
      - type: email
        operator: str_ends_with_any
        targetValue: ["@example.com"]
    environments: [production]
`;
}

const CONFIG_SCHEMA = `schemaJson5: |
  { type: 'object', properties: { limit: { type: 'integer', minimum: 0 }, label: { type: 'string' } }, required: ['limit'] }
`;

function configYaml(i: number, gates: number): string {
  return `${modeline('dynamic_config')}id: config_${i}
name: Config ${i}
description: Limits of feature ${i}.
tags: [flagops-managed, team-${i % 12}]
${i % 2 === 0 ? CONFIG_SCHEMA : ''}defaultValueJson5: |
  {
    limit: ${i % 500}, // per customer
    label: 'feature ${i}',
  }
rules:
  - name: gated
    passPercentage: 50
    conditions:
      - type: passes_gate
        targetValue: [gate_${i % gates}]
    returnValueJson5: |
      { limit: ${(i % 500) + 10} /* raised */, label: 'gated ${i}' }
`;
}

function layerYaml(i: number): string {
  return `${modeline('layer')}id: layer_${i}\nname: Layer ${i}\ntags: [flagops-managed]\nparameters:\n  - name: color\n    type: string\n    defaultValue: blue\n`;
}

function experimentYaml(i: number, layers: number): string {
  // At most ten experiments of 10% per layer, so no layer is over-allocated.
  const layer = i < layers * 10 ? `layerID: layer_${i % layers}\nallocation: 10\n` : '';
  return `${modeline('experiment')}id: experiment_${i}
name: Experiment ${i}
hypothesis: Variant ${i} converts better.
tags: [flagops-managed]
${layer}groups:
  - name: Control
    size: 50
    parameterValues: { color: blue }
  - name: Test
    size: 50
    parameterValues: { color: green }
`;
}

function holdoutYaml(i: number, gates: number): string {
  return `${modeline('holdout')}id: holdout_${i}\nname: Holdout ${i}\npassPercentage: 2\ntags: [flagops-managed]\ngateIDs: [gate_${i % gates}, gate_${(i + 1) % gates}]\n`;
}

function promptYaml(i: number): string {
  return `${modeline('prompt')}name: prompt_${i}\ndisplayName: Prompt ${i}\ndescription: Assistant ${i}.\ntags: [flagops-managed, ai]\n`;
}

/** Writes a repository of about `n` entities; returns the number of files written. */
export function generateRepo(dir: string, n: number): number {
  const count = (share: number): number => Math.max(1, Math.round(n * share));
  const segments = count(MIX.segments);
  const configs = count(MIX.dynamic_configs);
  const layers = count(MIX.layers);
  const experiments = count(MIX.experiments);
  const holdouts = count(MIX.holdouts);
  const prompts = count(MIX.prompts);
  const gates = n - segments - configs - layers - experiments - holdouts - prompts;
  writeFileSync(join(dir, 'flagops.yaml'), 'console:\n  url: http://127.0.0.1:8080\nenvironments: [development, staging, production]\n');
  const write = (folder: string, total: number, text: (i: number) => string, id: (i: number) => string): void => {
    mkdirSync(join(dir, folder), { recursive: true });
    for (let i = 0; i < total; i++) writeFileSync(join(dir, folder, `${id(i)}.yaml`), text(i));
  };
  write('segments', segments, segmentYaml, (i) => `segment_${i}`);
  write('gates', gates, (i) => gateYaml(i, segments), (i) => `gate_${i}`);
  write('dynamic_configs', configs, (i) => configYaml(i, gates), (i) => `config_${i}`);
  write('layers', layers, layerYaml, (i) => `layer_${i}`);
  write('experiments', experiments, (i) => experimentYaml(i, layers), (i) => `experiment_${i}`);
  write('holdouts', holdouts, (i) => holdoutYaml(i, gates), (i) => `holdout_${i}`);
  write('prompts', prompts, promptYaml, (i) => `prompt_${i}`);
  return n;
}
