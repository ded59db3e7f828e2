import { describe, expect, it } from 'vitest';
import { entryForFolder } from '../../schemas/entity-file.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { adoptEntityFile } from './adopt-entity-file.js';
import { formatEntityYaml } from './format-entity-yaml.js';

const GATES = entryForFolder('gates') as EntitySchemaEntry;
const CONFIGS = entryForFolder('dynamic_configs') as EntitySchemaEntry;
const TAG = 'flagops-managed';

describe('adoptEntityFile', () => {
  it("takes the console's values in the canonical form fmt --check accepts, flow lists and comments kept", () => {
    const text = 'id: dark_mode\nname: dark mode\n# Shown in the shop.\ndescription: old\ntags: [web, beta]\n';
    const adopted = adoptEntityFile(text, GATES, { id: 'dark_mode', name: 'dark mode', description: 'edited in the console', tags: ['web', 'beta', TAG], isEnabled: true, rules: [] }, TAG);
    expect(adopted).toBe('id: dark_mode\nname: dark mode\n# Shown in the shop.\ndescription: edited in the console\ntags: [web, beta]\n');
    expect(formatEntityYaml(adopted, GATES)).toEqual({ ok: true, text: adopted });
  });

  it('writes no managed tag into a file that did not carry it, and keeps it in one that did', () => {
    const live = { id: 'g', name: 'g', description: 'new', tags: [TAG] };
    expect(adoptEntityFile('id: g\nname: g\ndescription: old\n', GATES, live, TAG)).toBe('id: g\nname: g\ndescription: new\n');
    expect(adoptEntityFile(`id: g\nname: g\ndescription: old\ntags: [${TAG}]\n`, GATES, live, TAG)).toBe(`id: g\nname: g\ndescription: new\ntags: [${TAG}]\n`);
  });

  it("keeps the file's values of console-owned fields and writes no tag naming them", () => {
    const text = 'id: g\nname: g\ndescription: old\nisEnabled: true\nrules:\n  - name: ramp\n    passPercentage: 10\n    conditions: [{type: public}]\n';
    const live = { id: 'g', name: 'g', description: 'new', isEnabled: false, tags: [TAG, 'flagops-console-owns:isEnabled', 'flagops-console-owns:rules[*].passPercentage'], rules: [{ id: 'r1', name: 'ramp', passPercentage: 0, conditions: [{ type: 'public' }] }] };
    expect(adoptEntityFile(text, GATES, live, TAG, ['isEnabled', 'rules[*].passPercentage'])).toBe(text.replace('description: old', 'description: new'));
  });

  it('places a field the file lacked where fmt would, and writes flow maps without padding', () => {
    const adopted = adoptEntityFile('id: pricing\nname: pricing\ndefaultValue: {price: 10}\n', CONFIGS, { id: 'pricing', name: 'pricing', description: 'set in the console', defaultValue: { price: 120 } }, TAG);
    expect(formatEntityYaml(adopted, CONFIGS)).toEqual({ ok: true, text: adopted });
    expect(adopted).toMatch(/^id: pricing\nname: pricing\ndescription: set in the console\n/);
    expect(adopted).toContain('defaultValue: {price: 120}\n');
  });
});
