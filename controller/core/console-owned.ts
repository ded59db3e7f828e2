/**
 * Console-owned fields (`ownership.console` of flagops.yaml): fields of an existing entity whose
 * value is the console's, not the file's. One switch: plans do not diff them and apply does not write
 * them, because the desired entity takes the console's value there before anything is compared or
 * sent. Pure.
 */
import { CONSOLE_OWNS_TAG_PREFIX } from '../../schemas/repo-config.js';
import { keysOf } from './diff.js';
import type { JsonObject } from './repo-entity.js';
import { isPlainObject } from './is-plain-object.js';

/** One step of an owned path: a field, and whether `[*]` follows it (every item of the list). */
export interface OwnedStep {
  key: string;
  each: boolean;
}


const STEP = /^([A-Za-z_][A-Za-z0-9_]*)(\[\*\])?$/;

/** `rules[*].passPercentage` → rules (each), passPercentage; undefined for text that is no field path. */
export function parseOwnedPath(path: string): OwnedStep[] | undefined {
  const steps: OwnedStep[] = [];
  for (const part of path.split('.')) {
    const match = STEP.exec(part);
    if (!match) return undefined;
    steps.push({ key: match[1]!, each: match[2] !== undefined });
  }
  return steps;
}

/** The paths the console owns of one entity: its kind's list, then the entity's own, each once. */
export function ownedPathsOf(ownership: Readonly<Record<string, readonly string[]>>, folder: string, id: string): string[] {
  const ofKind = ownership[folder];
  const ofEntity = ownership[`${folder}/${id}`];
  // Most repositories own nothing: a plan of every entity asks this once per entity.
  if (ofEntity === undefined) return ofKind === undefined ? [] : [...ofKind];
  return [...new Set([...(ofKind ?? []), ...ofEntity])];
}

/** The tags that tell the console which fields of an entity it owns (none when it owns none). */
export const consoleOwnsTags = (paths: readonly string[]): string[] => paths.map((p) => `${CONSOLE_OWNS_TAG_PREFIX}${p}`);


/**
 * Pairs each desired item with the live item it stands for, as the diff matches them: by id when both
 * lists name every item by id, else by name, else by position when the lengths agree. A desired item
 * without a partner is new: it keeps the file's values, as a create does.
 */
function partners(desired: readonly unknown[], live: readonly unknown[]): Map<number, unknown> {
  const pairs = new Map<number, unknown>();
  for (const key of ['id', 'name'] as const) {
    const want = keysOf(desired, key);
    const have = keysOf(live, key);
    if (want && have) {
      const byKey = new Map(have.map((k, i) => [k, live[i]]));
      want.forEach((k, i) => byKey.has(k) && pairs.set(i, byKey.get(k)));
      return pairs;
    }
  }
  if (desired.length === live.length) desired.forEach((_, i) => pairs.set(i, live[i]));
  return pairs;
}

/** Gives `target` the live value at the path from step `at` on; only where the desired side has the field. */
function take(target: JsonObject, live: unknown, steps: readonly OwnedStep[], at: number): void {
  const step = steps[at];
  if (step === undefined || !Object.hasOwn(target, step.key)) return;
  const last = at === steps.length - 1;
  const source = isPlainObject(live) && Object.hasOwn(live, step.key) ? live[step.key] : undefined;
  if (!step.each) {
    if (!last) {
      const inner = target[step.key];
      if (isPlainObject(inner)) take(inner, source, steps, at + 1);
    } else if (source === undefined) delete target[step.key];
    else target[step.key] = structuredClone(source);
    return;
  }
  const list = target[step.key];
  if (!Array.isArray(list)) return;
  for (const [i, partner] of partners(list, Array.isArray(source) ? source : [])) {
    if (last) list[i] = structuredClone(partner);
    else if (isPlainObject(list[i])) take(list[i] as JsonObject, partner, steps, at + 1);
  }
}

/**
 * The desired entity with the live entity's values at the owned paths: what git wants of an entity
 * that exists. A field the desired side leaves out stays out; one the live side lacks is dropped, so
 * neither side's absence becomes a change. Returns a copy; `desired` is left as it is.
 */
export function keepOwned(desired: JsonObject, live: JsonObject, paths: readonly string[]): JsonObject {
  if (paths.length === 0) return desired;
  const result = structuredClone(desired);
  for (const path of paths) {
    const steps = parseOwnedPath(path);
    if (steps) take(result, live, steps, 0);
  }
  return result;
}
