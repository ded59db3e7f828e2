/**
 * Team policies the bridge enforces on every proposed change, on top of "matches git". Pure: the
 * caller passes the clock.
 */
import type { z } from 'zod';
import { entryForFolder } from '../../schemas/entity-file.js';
import type { BridgeSettingsSchema, FreezeWindowSchema, TeamRuleSchemas } from '../../schemas/repo-config.js';
import { exportable } from './normalize.js';
import { teamRuleViolations } from './team-rules.js';

/** Policy shapes come from the flagops.yaml schema, the single source of their fields. */
export type FreezeWindow = z.infer<typeof FreezeWindowSchema>;
/** The bridge's settings, and the team rules of `policies.schemas` that it enforces too. */
export type BridgePolicies = z.input<typeof BridgeSettingsSchema> & { schemas?: TeamRuleSchemas };

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

/** Each rule's passPercentage by name, with the rule's index in the list. */
function rulePercentages(config: Record<string, unknown> | null): Map<string, { at: number; value: number }> {
  const rules = Array.isArray(config?.['rules']) ? (config['rules'] as Record<string, unknown>[]) : [];
  const out = new Map<string, { at: number; value: number }>();
  rules.forEach((r, at) => {
    if (typeof r['passPercentage'] === 'number') out.set(String(r['name']), { at, value: r['passPercentage'] });
  });
  return out;
}

/** A day: how far ahead a freeze window is announced. */
export const FREEZE_NOTICE_MS = 24 * 60 * 60 * 1000;

/**
 * The first freeze window that is not active at `now` and starts within `withinMs`, with its start.
 * Candidates are the windows' own starts (an absolute start, a weekly `from` today or on the next
 * days), each confirmed by activeFreeze, so both answers agree on what a window covers.
 */
export function upcomingFreeze(windows: readonly FreezeWindow[], now: number, withinMs = FREEZE_NOTICE_MS): { window: FreezeWindow; start: number } | undefined {
  let first: { window: FreezeWindow; start: number } | undefined;
  const dayStart = Math.floor(now / 86_400_000) * 86_400_000;
  for (const w of windows) {
    if (activeFreeze([w], now)) continue;
    const starts: number[] = [];
    if (w.start !== undefined) starts.push(Date.parse(w.start));
    else if (w.end === undefined) {
      for (let day = 0; day * 86_400_000 <= withinMs + 86_400_000; day++) starts.push(dayStart + day * 86_400_000 + minutesOf(w.from, 0) * 60_000);
    }
    const start = starts.find((at) => at > now && at <= now + withinMs && activeFreeze([w], at));
    if (start !== undefined && (first === undefined || start < first.start)) first = { window: w, start };
  }
  return first;
}

/** One policy's judgement of a change: `reject` is what the bridge refuses; `warn` does not block. */
export interface PolicyVerdict {
  /** protectedEntities, maxPassPercentageStep, freezeWindows, or a team rule (`policies.schemas.gates#/required`). */
  policy: string;
  verdict: 'pass' | 'warn' | 'reject';
  message: string;
  /** The field of the new config the verdict is about (`rules[1].passPercentage`), when there is one. */
  property?: string;
}

function protection(change: ProposedChange, policies: BridgePolicies, qualified: string): PolicyVerdict[] {
  const list = policies.protectedEntities ?? [];
  if (list.length === 0) return [];
  const protectedOne = list.some((p) => p === qualified || p === change.id);
  // Protection keeps an existing entity as it is; declaring it the first time is how it comes to be.
  // Only a create comes without an old config and with a new one: lifecycle changes (start, ship,
  // abandon) carry neither, and act on an experiment that exists.
  const creates = change.oldConfig === null && change.newConfig !== null;
  if (!protectedOne) return [{ policy: 'protectedEntities', verdict: 'pass', message: `${qualified} is not protected.` }];
  if (creates) return [{ policy: 'protectedEntities', verdict: 'pass', message: `${qualified} is protected; creating it is allowed.` }];
  return [{ policy: 'protectedEntities', verdict: 'reject', message: `${qualified} is protected by policy: change it outside the webhook flow.` }];
}

function freezes(policies: BridgePolicies, now: number): PolicyVerdict[] {
  const windows = policies.freezeWindows ?? [];
  if (windows.length === 0) return [];
  const freeze = activeFreeze(windows, now);
  if (freeze) return [{ policy: 'freezeWindows', verdict: 'reject', message: `a freeze window is active${freeze.reason ? ` (${freeze.reason})` : ''}.` }];
  const soon = upcomingFreeze(windows, now);
  if (soon) {
    const hours = Math.max(1, Math.round((soon.start - now) / 3_600_000));
    const message = `a freeze window starts at ${new Date(soon.start).toISOString()} (in about ${hours} h)${soon.window.reason ? ` (${soon.window.reason})` : ''}: the bridge rejects changes from then.`;
    return [{ policy: 'freezeWindows', verdict: 'warn', message }];
  }
  return [{ policy: 'freezeWindows', verdict: 'pass', message: 'no freeze window is active or starts within 24 hours.' }];
}

function steps(change: ProposedChange, policies: BridgePolicies): PolicyVerdict[] {
  const step = policies.maxPassPercentageStep;
  if (step === undefined) return [];
  // A create has no step to measure: the policy limits how fast an existing rollout moves.
  if (!change.oldConfig || !change.newConfig) return [{ policy: 'maxPassPercentageStep', verdict: 'pass', message: `no existing rollout moves (the step limit is ${step}).` }];
  const before = rulePercentages(change.oldConfig);
  const verdicts: PolicyVerdict[] = [];
  for (const [name, after] of rulePercentages(change.newConfig)) {
    const from = before.get(name)?.value ?? 0;
    // A rise of exactly the step is allowed: 3.3 → 8.3 is 5.000000000000001 in binary floating point.
    if (after.value - from > step + 1e-9) {
      verdicts.push({ policy: 'maxPassPercentageStep', verdict: 'reject', message: `rule '${name}' passPercentage rises ${from} → ${after.value}, more than the allowed step of ${step}.`, property: `rules[${after.at}].passPercentage` });
    }
  }
  return verdicts.length > 0 ? verdicts : [{ policy: 'maxPassPercentageStep', verdict: 'pass', message: `no rule's passPercentage rises more than ${step}.` }];
}

function teamRules(change: ProposedChange, policies: BridgePolicies, qualified: string): PolicyVerdict[] {
  const schemas = policies.schemas ?? {};
  const entry = entryForFolder(change.folder);
  if (change.newConfig === null || entry === undefined || (schemas as Record<string, unknown>)[change.folder] === undefined) return [];
  // The entity as a file declares it (the form `flagops export` writes): a console read's server
  // fields and defaults would otherwise break rules written for files.
  const violations = teamRuleViolations(change.folder, exportable(entry, change.newConfig), schemas);
  if (violations.length === 0) return [{ policy: `policies.schemas.${change.folder}`, verdict: 'pass', message: `${qualified} satisfies the team rules of its kind.` }];
  return violations.map((v) => ({ policy: v.rule, verdict: 'reject', message: `${qualified}${v.property === '' ? '' : ` ${v.property}`} breaks team rule ${v.rule}: ${v.message}.`, ...(v.property === '' ? {} : { property: v.property }) }));
}

/**
 * Every configured policy's verdict on the change, in a fixed order: the bridge rejects a change with
 * any `reject`; validate --base and plan show the same verdicts before the change is merged.
 */
export function policyVerdicts(change: ProposedChange, policies: BridgePolicies, now: number): PolicyVerdict[] {
  const qualified = `${change.folder}/${change.id}`;
  return [...protection(change, policies, qualified), ...freezes(policies, now), ...steps(change, policies), ...teamRules(change, policies, qualified)];
}

/** Every policy the change breaks, as sentences for the reviewer. Empty when it may proceed. */
export function policyViolations(change: ProposedChange, policies: BridgePolicies, now: number): string[] {
  return policyVerdicts(change, policies, now).flatMap((v) => (v.verdict === 'reject' ? [v.message] : []));
}
