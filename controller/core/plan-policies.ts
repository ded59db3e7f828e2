import { policyVerdicts, type BridgePolicies } from './bridge-policies.js';
import type { LiveState, Plan, PlanChange } from './plan.js';
import type { JsonObject, RepoEntity } from './repo-entity.js';

/**
 * The configs a change moves between, as the bridge will see them: what the entity was (the live
 * side), what it becomes (the file), or null where it does not exist. Undefined for a change nothing
 * submits (drift that is reported or adopted into the file, not healed).
 */
function configsOf(change: PlanChange, desired: ReadonlyMap<string, JsonObject>, live: ReadonlyMap<string, JsonObject>): { oldConfig: JsonObject | null; newConfig: JsonObject | null } | undefined {
  if (change.action === 'drift' && change.drift?.policy !== 'heal') return undefined;
  const key = `${change.kind}/${change.id}`;
  const before = change.action === 'create' ? undefined : live.get(key);
  return { oldConfig: before ?? null, newConfig: change.action === 'delete' ? null : (desired.get(key) ?? null) };
}

/** Whether any policy is configured: without one, no change gets a verdict (and nothing is looked up). */
function anyPolicy(policies: BridgePolicies): boolean {
  return (policies.protectedEntities ?? []).length > 0 || (policies.freezeWindows ?? []).length > 0 || policies.maxPassPercentageStep !== undefined || Object.keys(policies.schemas ?? {}).length > 0;
}

/**
 * Each change of the plan with the verdicts of the policies the bridge runs on it (the same
 * function), so a pull request shows what the bridge will refuse before it is merged.
 */
export function withPolicyVerdicts(plan: Plan, desired: readonly RepoEntity[], live: LiveState, policies: BridgePolicies, now: number): Plan {
  if (!anyPolicy(policies)) return { ...plan, changes: plan.changes.map((change) => ({ ...change, policies: [] })) };
  const byKey = new Map(desired.map((e) => [`${e.folder}/${e.id}`, e.data]));
  const liveByKey = new Map([...live.entities].flatMap(([kind, records]) => records.map((r) => [`${kind}/${r.id}`, r.data] as const)));
  const changes = plan.changes.map((change): PlanChange => {
    const configs = configsOf(change, byKey, liveByKey);
    if (configs === undefined) return { ...change, policies: [] };
    return { ...change, policies: policyVerdicts({ folder: change.kind, id: change.id, changeType: change.action, ...configs }, policies, now) };
  });
  return { ...plan, changes };
}
