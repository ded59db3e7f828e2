import { describe, expect, it } from 'vitest';
import type { Plan, PlanChange } from './plan.js';
import { isEmptyDelta, planDelta } from './plan-delta.js';

const change = (id: string, newValue: unknown): PlanChange => ({ kind: 'gates', id, action: 'update', file: `gates/${id}.yaml`, fields: [{ path: 'description', old: 'a', new: newValue }] });
const plan = (changes: PlanChange[]): Plan => ({
  desired: '.',
  live: 'console',
  summary: { create: 0, update: changes.length, delete: 0, drift: 0, unchanged: 0, untracked: 0 },
  changes,
  warnings: [],
});

describe('planDelta', () => {
  it('reports everything as added the first time', () => {
    expect(planDelta(undefined, plan([change('a', 'b')])).added.map((c) => c.id)).toEqual(['a']);
  });

  it('splits added, removed and changed entities, and is empty for an identical plan', () => {
    const delta = planDelta(plan([change('a', 'b'), change('b', 'x')]), plan([change('b', 'y'), change('c', 'z')]));
    expect(delta.added.map((c) => c.id)).toEqual(['c']);
    expect(delta.removed.map((c) => c.id)).toEqual(['a']);
    expect(delta.changed.map((c) => c.id)).toEqual(['b']);
    expect(isEmptyDelta(planDelta(plan([change('a', 'b')]), plan([change('a', 'b')])))).toBe(true);
  });
});
