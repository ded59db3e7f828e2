import { describe, expect, it } from 'vitest';
import type { LiveState, Plan, PlanChange } from './plan.js';
import { withPolicyVerdicts } from './plan-policies.js';
import { renderPlanJson } from './render-plan-json.js';
import { renderPlanMarkdown } from './render-plan-markdown.js';
import { renderPlanText } from './render-plan-text.js';
import type { RepoEntity } from './repo-entity.js';

const monday = Date.parse('2026-11-23T12:00:00Z');
const gate = (id: string, percentage: number, tags = ['team-a']): RepoEntity => ({ folder: 'gates', kind: 'gate', id, file: `gates/${id}.yaml`, data: { id, name: id, tags, rules: [{ name: 'ramp', passPercentage: percentage }] } });
const live: LiveState = { label: 'git main', source: 'files', entities: new Map([['gates', [{ id: 'up', data: gate('up', 10).data }, { id: 'gone', data: gate('gone', 10).data }, { id: 'drifted', data: gate('drifted', 90).data }]]]) };
const change = (id: string, action: PlanChange['action'], extra: Partial<PlanChange> = {}): PlanChange => ({ kind: 'gates', id, action, file: `gates/${id}.yaml`, fields: [], ...extra });
const plan: Plan = {
  desired: '.',
  live: 'git main',
  summary: { create: 1, update: 1, delete: 1, drift: 2, unchanged: 0, untracked: 0 },
  changes: [
    change('up', 'update'),
    change('fresh', 'create'),
    change('gone', 'delete'),
    change('drifted', 'drift', { drift: { policy: 'heal', lastModifier: 'x@example.com' } }),
    change('noticed', 'drift', { drift: { policy: 'detect', lastModifier: null } }),
  ],
  warnings: [],
};
const policies = { maxPassPercentageStep: 25, protectedEntities: ['gates/gone'], schemas: { gates: { contains: true, required: ['tags'] } } };

describe('withPolicyVerdicts', () => {
  const judged = withPolicyVerdicts(plan, [gate('up', 80), gate('fresh', 100, []), gate('drifted', 10), gate('noticed', 10)], live, policies, monday);
  const verdicts = (id: string) => judged.changes.find((c) => c.id === id)?.policies?.map((v) => `${v.policy} ${v.verdict}`);

  it('judges each change from the live side to the file, as the bridge will', () => {
    expect(verdicts('up')).toEqual(['protectedEntities pass', 'maxPassPercentageStep reject', 'policies.schemas.gates pass']);
    // No tags: as a file (and export) writes it, the field is left out, and the team rule wants it.
    expect(verdicts('fresh')).toEqual(['protectedEntities pass', 'maxPassPercentageStep pass', 'policies.schemas.gates#/required reject']);
    expect(verdicts('gone')).toEqual(['protectedEntities reject', 'maxPassPercentageStep pass']);
    // Healing reverts the console to the file (90 → 10: no rise); a detected drift submits nothing.
    expect(verdicts('drifted')).toEqual(['protectedEntities pass', 'maxPassPercentageStep pass', 'policies.schemas.gates pass']);
    expect(verdicts('noticed')).toEqual([]);
  });

  it('shows the verdicts in text, markdown and JSON', () => {
    const text = renderPlanText(judged);
    expect(text).toContain("    policy maxPassPercentageStep: reject: rule 'ramp' passPercentage rises 10 → 80, more than the allowed step of 25.");
    expect(text).toContain('Policies: 3 changes the bridge would reject (4 changes judged).');
    const md = renderPlanMarkdown(judged);
    expect(md).toContain('#### Policies\n\n:x: 3 changes the bridge would reject (4 changes judged).');
    expect(md).toContain('| :x: reject | `gates/gone` | `protectedEntities` | gates/gone is protected by policy: change it outside the webhook flow. |');
    expect(md).toContain('Passed where they apply: `protectedEntities`, `policies.schemas.gates`, `maxPassPercentageStep`.');
    expect(md.indexOf('#### Policies')).toBeLessThan(md.indexOf('<details>'));
    const json = JSON.parse(renderPlanJson(judged)) as { changes: { id: string; policies: unknown[] }[] };
    expect(json.changes.find((c) => c.id === 'noticed')?.policies).toEqual([]);
    expect(json.changes.find((c) => c.id === 'up')?.policies[1]).toEqual({ policy: 'maxPassPercentageStep', verdict: 'reject', message: "rule 'ramp' passPercentage rises 10 → 80, more than the allowed step of 25.", property: 'rules[0].passPercentage' });
  });

  it('leaves the Policies section and line out when no policy is configured', () => {
    const none = withPolicyVerdicts(plan, [gate('up', 80)], live, {}, monday);
    expect(renderPlanMarkdown(none)).not.toContain('Policies');
    expect(renderPlanText(none)).not.toContain('Policies:');
  });

  it('keeps the Policies section within its share of the comment', () => {
    const many: Plan = { ...plan, changes: Array.from({ length: 3000 }, (_, i) => change(`g${i}`, 'update', { policies: [{ policy: 'freezeWindows', verdict: 'reject', message: 'a freeze window is active.' }] })) };
    const md = renderPlanMarkdown(many);
    expect(md.length).toBeLessThanOrEqual(60_000);
    expect(md).toMatch(/\| … \| \d+ more \| \| \|/);
  });
});
