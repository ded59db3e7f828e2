import { describe, expect, it } from 'vitest';
import { driftByTime } from './drift-by-time.js';
import type { LiveState, Plan, PlanChange } from './plan.js';

const drift = (id: string): PlanChange => ({ kind: 'gates', id, action: 'drift', file: `gates/${id}.yaml`, fields: [{ path: 'description', old: 'console', new: 'git' }], drift: { policy: 'adopt', lastModifier: 'ops@example.com' } });
const plan: Plan = {
  desired: 'repo',
  live: 'console',
  summary: { create: 0, update: 1, delete: 0, drift: 2, unchanged: 0, untracked: 0 },
  changes: [drift('a'), drift('b'), { kind: 'gates', id: 'c', action: 'update', file: 'gates/c.yaml', fields: [] }],
  warnings: [],
};
const live: LiveState = {
  label: 'console',
  source: 'console',
  entities: new Map([['gates', ['a', 'b', 'c'].map((id) => ({ id, data: { id, lastModifiedTime: 1_000 } }))]]),
};

describe('driftByTime', () => {
  it('makes a drift an update when its file changed after the console edit, and counts it as one', () => {
    const result = driftByTime(plan, live, new Map([['gates/a.yaml', 1_001], ['gates/b.yaml', 1_000]]));
    expect(result.changes.map((c) => [c.id, c.action, c.drift])).toEqual([
      ['a', 'update', undefined],
      ['b', 'drift', { policy: 'adopt', lastModifier: 'ops@example.com' }],
      ['c', 'update', undefined],
    ]);
    expect(result.changes[0]?.fields).toEqual(plan.changes[0]?.fields);
    expect(result.summary).toMatchObject({ update: 2, drift: 1 });
  });

  it('keeps drift when the file time is unknown, or the console edit has no time', () => {
    expect(driftByTime(plan, live, new Map())).toBe(plan);
    const untimed: LiveState = { ...live, entities: new Map([['gates', [{ id: 'a', data: { id: 'a' } }]]]) };
    expect(driftByTime(plan, untimed, new Map([['gates/a.yaml', 5_000]]))).toBe(plan);
  });
});
