import type { z } from 'zod';
import type { BridgeSettingsSchema, FreezeWindowSchema } from '../../schemas/repo-config.js';

/**
 * Team policies the bridge enforces on every proposed change, on top of "matches git". Pure: the
 * caller passes the clock.
 */
/** Policy shapes come from the flagops.yaml schema, the single source of their fields. */
export type FreezeWindow = z.infer<typeof FreezeWindowSchema>;
export type BridgePolicies = z.input<typeof BridgeSettingsSchema>;

export interface ProposedChange {
  /** Config-repo folder of the entity: gates, dynamic_configs, segments, experiments. */
  folder: string;
  id: string;
  changeType: string;
  oldConfig: Record<string, unknown> | null;
  newConfig: Record<string, unknown> | null;
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function minutesOf(hhmm: string | undefined, fallback: number): number {
  const match = /^(\d{1,2}):(\d{2})$/.exec(hhmm ?? '');
  return match ? Number(match[1]) * 60 + Number(match[2]) : fallback;
}

export function activeFreeze(windows: readonly FreezeWindow[], now: number): FreezeWindow | undefined {
  const date = new Date(now);
  return windows.find((w) => {
    if (w.start !== undefined || w.end !== undefined) {
      const start = w.start ? Date.parse(w.start) : -Infinity;
      const end = w.end ? Date.parse(w.end) : Infinity;
      return now >= start && now < end;
    }
    if (w.days !== undefined) {
      const day = DAYS[date.getUTCDay()] ?? '';
      if (!w.days.includes(day as (typeof w.days)[number])) return false;
      const minute = date.getUTCHours() * 60 + date.getUTCMinutes();
      return minute >= minutesOf(w.from, 0) && minute < minutesOf(w.to, 24 * 60);
    }
    return false;
  });
}

function rulePercentages(config: Record<string, unknown> | null): Map<string, number> {
  const rules = Array.isArray(config?.['rules']) ? (config['rules'] as Record<string, unknown>[]) : [];
  return new Map(rules.filter((r) => typeof r['passPercentage'] === 'number').map((r) => [String(r['name']), r['passPercentage'] as number]));
}

/** Every policy the change breaks, as sentences for the reviewer. Empty when it may proceed. */
export function policyViolations(change: ProposedChange, policies: BridgePolicies, now: number): string[] {
  const violations: string[] = [];
  const qualified = `${change.folder}/${change.id}`;
  // Protection keeps an existing entity as it is; declaring it the first time is how it comes to be.
  if (change.oldConfig && (policies.protectedEntities ?? []).some((p) => p === qualified || p === change.id)) {
    violations.push(`${qualified} is protected by policy: change it outside the webhook flow.`);
  }
  const freeze = activeFreeze(policies.freezeWindows ?? [], now);
  if (freeze) violations.push(`a freeze window is active${freeze.reason ? ` (${freeze.reason})` : ''}.`);
  const step = policies.maxPassPercentageStep;
  // A create has no step to measure: the policy limits how fast an existing rollout moves.
  if (step !== undefined && change.oldConfig && change.newConfig) {
    const before = rulePercentages(change.oldConfig);
    for (const [name, after] of rulePercentages(change.newConfig)) {
      const from = before.get(name) ?? 0;
      if (after - from > step) violations.push(`rule '${name}' passPercentage rises ${from} → ${after}, more than the allowed step of ${step}.`);
    }
  }
  return violations;
}
