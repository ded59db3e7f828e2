import { jsonEqual } from '../core/json-equal.js';
import { NotAllowedError } from '../errors.js';
import type { JsonObject, KeyRecord } from '../store/ports.js';
import type { Actor } from './permissions.js';
import { labelInSentence } from './kinds/kind-def.js';

/**
 * What a console key's `environments` and target apps allow it to change. Both are limits: empty
 * means no limit. Reads are never limited; every write of an entity (direct, dry run, review
 * submission and review commit) passes through `assertChangeWithinKeyScope`.
 */

/** Entity fields holding rules, each rule with its own `environments`. */
const RULE_FIELDS = ['rules', 'inlineTargetingRules'] as const;

/** Entity fields that list environments themselves: adding or removing one changes that environment. */
const ENVIRONMENT_LIST_FIELDS = ['enabledNonProdEnvironments'] as const;

const list = (values: readonly string[]): string => values.join(', ');

/** A key's target apps: the primary one first. */
export function keyTargetApps(key: Pick<KeyRecord, 'primaryTargetApp' | 'secondaryTargetApps'>): string[] {
  return key.primaryTargetApp === null ? [...key.secondaryTargetApps] : [key.primaryTargetApp, ...key.secondaryTargetApps];
}

/**
 * A key whose own environments or target apps are limited may manage only keys limited to some of
 * them: otherwise it could mint (or rotate and so learn) a key without its limits.
 */
export function assertCallerCoversKey(caller: Actor | undefined, key: Pick<KeyRecord, 'id' | 'environments' | 'primaryTargetApp' | 'secondaryTargetApps'>, what: string): void {
  const environments = caller?.environments ?? [];
  if (environments.length > 0) {
    const outside = key.environments.filter((e) => !environments.includes(e));
    if (key.environments.length === 0 || outside.length > 0) {
      throw new NotAllowedError(
        `This key is limited to environments ${list(environments)}: it may not ${what} a key for ${key.environments.length === 0 ? 'every environment' : `environments ${list(outside)}`}.`,
      );
    }
  }
  const apps = caller?.targetApps ?? [];
  if (apps.length > 0) {
    const keyApps = keyTargetApps(key);
    const outside = keyApps.filter((a) => !apps.includes(a));
    if (keyApps.length === 0 || outside.length > 0) {
      throw new NotAllowedError(`This key is limited to target apps ${list(apps)}: it may not ${what} a key for ${keyApps.length === 0 ? 'every target app' : `target apps ${list(outside)}`}.`);
    }
  }
}

/**
 * Refuses a caller whose key is limited to environments or target apps: roles and settings apply to
 * every environment and app, so changing them would reach past the limits.
 */
export function assertCallerUnlimited(caller: Actor | undefined, what: string): void {
  const limits = [...(caller?.environments ?? []).map((e) => `environment ${e}`), ...(caller?.targetApps ?? []).map((a) => `target app ${a}`)];
  if (limits.length > 0) throw new NotAllowedError(`This key is limited (${list(limits)}): it may not ${what}, which apply to every environment and app.`);
}

/** A change of one entity: its stored data before (undefined: created) and after (undefined: deleted). */
export interface ScopedChange {
  label: string;
  id: string;
  before: JsonObject | undefined;
  after: JsonObject | undefined;
}

/** Refuses a change outside the actor's environments or target apps (403, naming what is outside). */
export function assertChangeWithinKeyScope(change: ScopedChange, actor: Actor): void {
  const apps = actor.targetApps ?? [];
  if (apps.length > 0) {
    // Before and after: a key may neither take over another app's entity nor move one out of reach.
    for (const data of [change.before, change.after]) {
      if (data === undefined) continue;
      const targets = targetAppsOfEntity(data);
      if (targets.some((app) => apps.includes(app))) continue;
      const verb = data === change.before ? 'targets' : 'would target';
      const what = targets.length === 0 ? 'no app (so every app)' : `apps ${list(targets)}`;
      throw new NotAllowedError(`${change.label} ${change.id} ${verb} ${what}; this key may change only entities of target apps ${list(apps)}.`);
    }
  }
  const environments = actor.environments ?? [];
  if (environments.length > 0) {
    for (const touched of touchedRules(change)) {
      const outside = touched.environments.length === 0 ? undefined : touched.environments.filter((e) => !environments.includes(e));
      if (outside !== undefined && outside.length === 0) continue;
      const where = outside === undefined ? 'every environment' : `environments ${list(outside)}`;
      throw new NotAllowedError(
        `This key may change rules of environments ${list(environments)} only: ${labelInSentence(change.label)} ${change.id} ${touched.how} rule '${touched.name}' (${touched.path}), which applies to ${where}.`,
      );
    }
    for (const touched of touchedOverrides(change)) {
      if (touched.environment !== null && environments.includes(touched.environment)) continue;
      const where = touched.environment === null ? 'every environment' : `environment ${touched.environment}`;
      throw new NotAllowedError(
        `This key may change overrides of environments ${list(environments)} only: ${labelInSentence(change.label)} ${change.id} changes ${touched.path}, which applies to ${where}.`,
      );
    }
    for (const field of ENVIRONMENT_LIST_FIELDS) {
      const before = stringsOf(change.before?.[field]);
      const after = stringsOf(change.after?.[field]);
      const toggled = [...after.filter((e) => !before.includes(e)), ...before.filter((e) => !after.includes(e))];
      const outside = toggled.filter((e) => !environments.includes(e));
      if (outside.length === 0) continue;
      throw new NotAllowedError(
        `This key may change environments ${list(environments)} only: ${labelInSentence(change.label)} ${change.id} adds or removes ${list(outside)} in ${field}.`,
      );
    }
  }
}

/**
 * Override lists, as stored: a gate's `overrides` object (plain id lists apply in every environment;
 * `environmentOverrides` entries in theirs) and an experiment's `overrides` and `userIDOverrides`
 * entries. An entry without an environment applies to every environment.
 */
function overrideEntries(data: JsonObject | undefined): Map<string, { path: string; environment: string | null }> {
  const entries = new Map<string, { path: string; environment: string | null }>();
  const add = (path: string, value: unknown, environment: unknown): void => {
    const env = typeof environment === 'string' && environment !== '' ? environment : null;
    entries.set(`${path.replace(/\[\d+\]$/, '')} ${JSON.stringify(value)}`, { path, environment: env });
  };
  const entryList = (path: string, value: unknown): void => {
    if (!Array.isArray(value)) return;
    value.forEach((entry, i) => add(`${path}[${i}]`, entry, entry !== null && typeof entry === 'object' ? (entry as JsonObject)['environment'] : null));
  };
  const overrides = data?.['overrides'];
  if (Array.isArray(overrides)) entryList('overrides', overrides);
  else if (overrides !== null && typeof overrides === 'object') {
    for (const [field, value] of Object.entries(overrides as JsonObject)) {
      if (field === 'environmentOverrides') entryList('overrides.environmentOverrides', value);
      // An empty list overrides nothing: a gate stored without overrides reads with empty lists.
      else if (!Array.isArray(value) || value.length > 0) add(`overrides.${field}`, value, null);
    }
  }
  entryList('userIDOverrides', data?.['userIDOverrides']);
  return entries;
}

/** Override entries a change adds, removes or changes. */
function touchedOverrides(change: ScopedChange): { path: string; environment: string | null }[] {
  const before = overrideEntries(change.before);
  const after = overrideEntries(change.after);
  return [...[...after].filter(([key]) => !before.has(key)), ...[...before].filter(([key]) => !after.has(key))].map(([, entry]) => entry);
}

/** Holdout fields that attach other entities to it, with the kind each names. */
const HOLDOUT_REFERENCES = [
  ['gateIDs', 'gate'],
  ['experimentIDs', 'experiment'],
  ['layerIDs', 'layer'],
] as const;

/**
 * A key limited to target apps changes a holdout's members only among entities of its apps (a
 * holdout decides who sees the entities it holds), and never `isGlobal`, which puts every gate
 * created after it, of any app, in the holdout. `read` gives an entity's stored data.
 */
export async function assertReferencesWithinKeyScope(kind: string, change: ScopedChange, actor: Actor, read: (kind: string, id: string) => Promise<JsonObject | undefined>): Promise<void> {
  const apps = actor.targetApps ?? [];
  if (apps.length === 0 || kind !== 'holdout') return;
  if ((change.before?.['isGlobal'] === true) !== (change.after?.['isGlobal'] === true)) {
    throw new NotAllowedError(`Holdout ${change.id}: isGlobal reaches every gate created after it, of any app; this key may change only entities of target apps ${list(apps)}.`);
  }
  for (const [field, referenced] of HOLDOUT_REFERENCES) {
    const before = stringsOf(change.before?.[field]);
    const after = stringsOf(change.after?.[field]);
    for (const id of [...after.filter((i) => !before.includes(i)), ...before.filter((i) => !after.includes(i))]) {
      const targets = targetAppsOfEntity((await read(referenced, id)) ?? {});
      if (targets.some((app) => apps.includes(app))) continue;
      const what = targets.length === 0 ? 'no app (so every app)' : `apps ${list(targets)}`;
      throw new NotAllowedError(`Holdout ${change.id} ${after.includes(id) ? 'adds' : 'removes'} ${referenced.replace('_', ' ')} ${id} (${field}), which targets ${what}; this key may change only entities of target apps ${list(apps)}.`);
    }
  }
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function targetAppsOfEntity(data: JsonObject): string[] {
  return stringsOf(data['targetApps']);
}

interface TouchedRule {
  path: string;
  name: string;
  how: 'adds' | 'removes' | 'changes' | 'moves';
  /** Environments the rule applies to before and after; empty: every environment. */
  environments: string[];
}

interface RuleAt {
  rule: JsonObject;
  path: string;
}

function rulesOf(data: JsonObject | undefined, field: string): Map<string, RuleAt> {
  const rules = new Map<string, RuleAt>();
  const value = data?.[field];
  if (!Array.isArray(value)) return rules;
  value.forEach((rule, index) => {
    if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) return;
    const r = rule as JsonObject;
    rules.set(String(r['id'] ?? r['name'] ?? index), { rule: r, path: `${field}[${index}]` });
  });
  return rules;
}

/** A rule without environments (null, absent or empty) applies to every environment. */
function environmentsOf(rule: JsonObject): string[] | 'all' {
  const environments = rule['environments'];
  return Array.isArray(environments) && environments.length > 0 ? environments.map(String) : 'all';
}

/** The environments the rules apply to together; empty: every environment. */
function merged(...rules: JsonObject[]): string[] {
  const all = rules.map(environmentsOf);
  return all.includes('all') ? [] : [...new Set(all.flat() as string[])];
}

/**
 * The rules a change adds, removes, changes or moves (matched by id): a rule moved past another
 * changes which one matches first, in the environments of both.
 */
function touchedRules(change: ScopedChange): TouchedRule[] {
  const touched: TouchedRule[] = [];
  for (const field of RULE_FIELDS) {
    const before = rulesOf(change.before, field);
    const after = rulesOf(change.after, field);
    const name = (rule: JsonObject): string => String(rule['name'] ?? rule['id'] ?? '');
    for (const [id, { rule, path }] of before) {
      if (!after.has(id)) touched.push({ path, name: name(rule), how: 'removes', environments: merged(rule) });
    }
    const sharedBefore = [...before.keys()].filter((id) => after.has(id));
    const sharedAfter = [...after.keys()].filter((id) => before.has(id));
    for (const [id, { rule, path }] of after) {
      const old = before.get(id);
      if (!old) touched.push({ path, name: name(rule), how: 'adds', environments: merged(rule) });
      else if (!jsonEqual(old.rule, rule)) touched.push({ path, name: name(rule), how: 'changes', environments: merged(old.rule, rule) });
      else if (sharedBefore.indexOf(id) !== sharedAfter.indexOf(id)) touched.push({ path, name: name(rule), how: 'moves', environments: merged(rule) });
    }
  }
  return touched;
}
