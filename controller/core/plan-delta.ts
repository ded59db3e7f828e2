import type { Plan, PlanChange } from './plan.js';

export interface PlanDelta {
  /** Changes the new plan has that the previous one did not. */
  added: PlanChange[];
  /** Changes of the previous plan that are gone (applied elsewhere, or the edit was undone). */
  removed: PlanChange[];
  /** Entities in both plans whose change differs. */
  changed: PlanChange[];
}

const keyOf = (c: PlanChange): string => `${c.kind}/${c.id}`;

/** What changed between two plans, so `flagops watch` prints only that after each save. */
export function planDelta(previous: Plan | undefined, next: Plan): PlanDelta {
  const before = new Map((previous?.changes ?? []).map((c) => [keyOf(c), c]));
  const after = new Map(next.changes.map((c) => [keyOf(c), c]));
  const delta: PlanDelta = { added: [], removed: [], changed: [] };
  for (const [key, change] of after) {
    const old = before.get(key);
    if (!old) delta.added.push(change);
    else if (JSON.stringify(old) !== JSON.stringify(change)) delta.changed.push(change);
  }
  for (const [key, change] of before) if (!after.has(key)) delta.removed.push(change);
  return delta;
}

export const isEmptyDelta = (delta: PlanDelta): boolean => delta.added.length + delta.removed.length + delta.changed.length === 0;
