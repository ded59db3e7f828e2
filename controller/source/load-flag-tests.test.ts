import { describe, expect, it } from 'vitest';
import { loadFlagTests } from './load-flag-tests.js';

const context = { declared: ['gates/new_checkout', 'dynamic_configs/pricing', 'experiments/button_color_test', 'layers/checkout_layer', 'segments/internal_staff'], environments: ['staging', 'production'] };

const load = (text: string) => loadFlagTests(new Map([['tests/t.yaml', text]]), context);

/** `line:col property message` of each diagnostic, for compact assertions. */
const found = (text: string): string[] => load(text).diagnostics.map((d) => `${d.line}:${d.column} ${d.property} ${d.message}`);

describe('loadFlagTests', () => {
  it('places valid cases at their list item, with the kind and id they name', () => {
    const { tests, diagnostics } = load(`# a comment
- name: staff
  entity: gates/new_checkout
  user: {userID: u-1, email: ann@acme.example}
  expect: true

- name: rollout
  entity: gates/new_checkout
  environment: production
  sample: {units: 100}
  expect: {passRate: 0.2, tolerance: 0.05}
`);
    expect(diagnostics).toEqual([]);
    expect(tests.map((t) => [t.line, t.column, t.kind, t.id, t.test.name])).toEqual([
      [2, 3, 'gate', 'new_checkout', 'staff'],
      [7, 3, 'gate', 'new_checkout', 'rollout'],
    ]);
  });

  it('reports an unknown key at its own line and column, with did-you-mean, and leaves the case out', () => {
    const { tests, diagnostics } = load(`- name: staff
  entity: gates/new_checkout
  usr: {userID: u-1}
  expect: true
- name: fine
  entity: gates/new_checkout
  user: {userID: u-1, emial: a@b.c}
  expect: true
`);
    expect(tests).toEqual([]);
    expect(diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.property} ${d.message}`)).toEqual([
      "tests/t.yaml:3:3 [0].usr is not a known field (did you mean 'user'?)",
      "tests/t.yaml:7:23 [1].user.emial is not a known field (did you mean 'email'?)",
    ]);
    expect(diagnostics.every((d) => d.code === 'flag-test' && d.severity === 'error')).toBe(true);
  });

  it('names an entity no file declares, suggesting the closest flag or the same id under another kind', () => {
    expect(found(`- name: a
  entity: gates/new_chekout
  user: {userID: u}
  expect: true
- name: b
  entity: gates/pricing
  user: {userID: u}
  expect: true
- name: c
  entity: gates/internal_staff
  user: {userID: u}
  expect: true
`)).toEqual([
      "2:11 [0].entity names no entity of the repository: no file declares gates/new_chekout (did you mean 'gates/new_checkout'?)",
      "6:11 [1].entity names no entity of the repository: no file declares gates/pricing (did you mean 'dynamic_configs/pricing'?)",
      // A segment is not a flag: never suggested.
      '10:11 [2].entity names no entity of the repository: no file declares gates/internal_staff',
    ]);
  });

  it('refuses a kind the engine does not answer for, and an environment flagops.yaml does not list', () => {
    expect(found(`- name: a
  entity: segments/internal_staff
  user: {userID: u}
  expect: true
- name: b
  entity: gates/new_checkout
  environment: prodution
  user: {userID: u}
  expect: true
`)).toEqual([
      '2:11 [0].entity must be KIND/ID with KIND one of gates, dynamic_configs, experiments, layers, e.g. gates/new_checkout',
      "7:16 [1].environment 'prodution' is not an environment of flagops.yaml (staging, production) (did you mean 'production'?)",
    ]);
  });

  it('checks the expect against the kind: a boolean for a gate, an object for the others', () => {
    expect(found(`- name: gate
  entity: gates/new_checkout
  user: {userID: u}
  expect: {value: true}
- name: config
  entity: dynamic_configs/pricing
  user: {userID: u}
  expect: true
- name: experiment
  entity: experiments/button_color_test
  user: {userID: u}
  expect: {group: 3}
- name: layer
  entity: layers/checkout_layer
  user: {userID: u}
  expect: false
`)).toEqual([
      '4:11 [0].expect must be true or false for a gate, not {"value":true}',
      '8:11 [1].expect must be an object for a dynamic config: an object its value contains',
      '12:19 [2].expect.group must be the name of a group',
      '16:11 [3].expect must be an object for a layer: an object its value contains',
    ]);
  });

  it('checks a sampled case: a pass rate, a value for kinds other than gates, no unit id of its own', () => {
    expect(found(`- name: no rate
  entity: gates/new_checkout
  sample: {units: 100}
  expect: true
- name: config without value
  entity: dynamic_configs/pricing
  sample: {units: 100}
  expect: {passRate: 0.5}
- name: rate out of range, a typo
  entity: gates/new_checkout
  sample: {units: 100}
  expect: {passRate: 1.5, tolerence: 0.1}
- name: own unit id
  entity: gates/new_checkout
  user: {userID: u-1}
  sample: {units: 0}
  expect: {passRate: 0.5}
- name: neither
  entity: gates/new_checkout
  expect: true
`)).toEqual([
      '4:11 [0].expect must be { passRate, tolerance, value } for a sampled case',
      '8:11 [1].expect needs value: the answer whose share passRate gives (for a dynamic config, an object its value contains)',
      '12:22 [2].expect.passRate must be between 0 and 1',
      "12:38 [2].expect.tolerence is not a known field (did you mean 'tolerance'?)",
      '16:19 [3].sample.units must be at least 1',
      '18:3 [4] gives neither user nor sample: a case evaluates one user, or a sample of generated units',
    ]);
    expect(found(`- name: own unit id
  entity: gates/new_checkout
  user: {userID: u-1}
  sample: {units: 10}
  expect: {passRate: 0.5}
`)).toEqual(['3:18 [0].user.userID is generated for each unit of a sample: leave it out']);
  });

  it('reports a file that is not a list, and YAML that does not parse, never throwing', () => {
    expect(found('name: a\nentity: gates/new_checkout\n')).toEqual(['1:1  must be a list of flag test cases (- name: …, entity: …, user: …, expect: …)']);
    expect(found('- name: [unclosed\n')[0]).toMatch(/^\d+:\d+ {2}\S/);
    expect(load('').tests).toEqual([]);
    expect(load('').diagnostics).toEqual([]);
  });
});
