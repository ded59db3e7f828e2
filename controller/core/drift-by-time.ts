import type { LiveState, Plan, PlanChange } from './plan.js';

/**
 * A drift is an edit in the console that the repository has not caught up with. When the entity's
 * file changed after the console's last edit (a commit, or uncommitted work, newer than its
 * `lastModifiedTime`), the repository moved last: its difference is an update to apply, not drift —
 * as after adopting a console edit and then editing the file, or after a lifecycle action (start,
 * ship) taken in the console. `fileTimes` maps files to when they last changed (epoch ms).
 */
export function driftByTime(plan: Plan, live: LiveState, fileTimes: ReadonlyMap<string, number>): Plan {
  let moved = 0;
  const changes = plan.changes.map((change): PlanChange => {
    if (change.action !== 'drift' || change.file === null) return change;
    const fileTime = fileTimes.get(change.file);
    const edited = (live.entities.get(change.kind) ?? []).find((e) => e.id === change.id)?.data['lastModifiedTime'];
    if (fileTime === undefined || typeof edited !== 'number' || !(fileTime > edited)) return change;
    moved++;
    const { drift: _drift, ...update } = change;
    return { ...update, action: 'update' };
  });
  if (moved === 0) return plan;
  return { ...plan, changes, summary: { ...plan.summary, drift: plan.summary.drift - moved, update: plan.summary.update + moved } };
}
