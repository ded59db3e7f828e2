import { policyVerdicts, type BridgePolicies } from './bridge-policies.js';
import type { LiveState, Plan, PlanChange } from './plan.js';
import type { JsonObject, RepoEntity } from './repo-entity.js';

/**
 * The configs a change moves between, as the bridge will see them: what the entity was (the live
 * side), what it becomes (the file), or null where it does not exist. Undefined for a change nothing
 * submits (drift that is reported or adopted into the file, not healed).
 */
function configsOf(change: PlanChange, desired: ReadonlyMap<string, JsonObject>, live: LiveState): { oldConfig: JsonObject | null; newConfig: JsonObject | null } | undefined {
  if (change.action === 'drift' && change.drift?.policy !== 'heal') return undefined;
  const key = `${change.kind}/${change.id}`;
  const before = change.action === 'create' ? undefined : (live.entities.get(change.kind) ?? []).find((e) => e.id === change.id)?.data;
  return { oldConfig: before ?? null, newConfig: change.action === 'delete' ? null : (desired.get(key) ?? null) };
}

/**
 * Each change of the plan with the verdicts of the policies the bridge runs on it (the same
 * function), so a pull request shows what the bridge will refuse before it is merged.
 */
export function withPolicyVerdicts(plan: Plan, desired: readonly RepoEntity[], live: LiveState, policies: BridgePolicies, now: number): Plan {
  const byKey = new Map(desired.map((e) => [`${e.folder}/${e.id}`, e.data]));
  const changes = plan.changes.map((change): PlanChange => {
    const configs = configsOf(change, byKey, live);
    if (configs === undefined) return { ...change, policies: [] };
    return { ...change, policies: policyVerdicts({ folder: change.kind, id: change.id, changeType: change.action, ...configs }, policies, now) };
  });
  return { ...plan, changes };
}
