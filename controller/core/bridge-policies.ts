/**
 * Team policies the bridge enforces on every proposed change, on top of "matches git". Pure: the
 * caller passes the clock.
 */
import type { z } from 'zod';
import type { BridgeSettingsSchema, FreezeWindowSchema } from '../../schemas/repo-config.js';

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
    if (w.days === undefined && w.from === undefined && w.to === undefined) return false;
    // Weekly: on the listed days (every day when none are), from `from` to `to`; a window whose `to`
    // is not after its `from` runs past midnight into the next day.
    const days: readonly string[] = w.days ?? DAYS;
    const today = DAYS[date.getUTCDay()] ?? '';
    const yesterday = DAYS[(date.getUTCDay() + 6) % 7] ?? '';
    const minute = date.getUTCHours() * 60 + date.getUTCMinutes();
    const from = minutesOf(w.from, 0);
    const to = minutesOf(w.to, 24 * 60);
    if (from < to) return days.includes(today) && minute >= from && minute < to;
    return (days.includes(today) && minute >= from) || (days.includes(yesterday) && minute < to);
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
  // Only a create comes without an old config and with a new one: lifecycle changes (start, ship,
  // abandon) carry neither, and act on an experiment that exists.
  const creates = change.oldConfig === null && change.newConfig !== null;
  if (!creates && (policies.protectedEntities ?? []).some((p) => p === qualified || p === change.id)) {
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
      // A rise of exactly the step is allowed: 3.3 → 8.3 is 5.000000000000001 in binary floating point.
      if (after - from > step + 1e-9) violations.push(`rule '${name}' passPercentage rises ${from} → ${after}, more than the allowed step of ${step}.`);
    }
  }
  return violations;
}
