/**
 * A plan saved by `flagops plan --out FILE` for `flagops apply FILE`: the plan JSON (docs/plan-json.md)
 * with what it was computed against — each config file's content hash, the git commit, and every live
 * entity's version — so apply can refuse, naming what moved, when the repository or the console changed.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { planToJson } from '../core/render-plan-json.js';
import { ConflictError, InputError } from '../errors.js';
import type { PlanResult } from './plan-service.js';

export const SAVED_PLAN_VERSION = 1;

const SavedPlanSchema = z
  .object({
    flagopsSavedPlan: z.literal(SAVED_PLAN_VERSION),
    createdAt: z.string(),
    directory: z.string().min(1),
    console: z.string().min(1),
    options: z.object({ prune: z.boolean(), targets: z.array(z.string()) }).strict(),
    against: z
      .object({
        commit: z.string().nullable(),
        contentHash: z.string(),
        files: z.record(z.string(), z.string()),
        live: z.record(z.string(), z.number().nullable()),
      })
      .strict(),
    planHash: z.string(),
    plan: z.record(z.string(), z.unknown()),
  })
  .strict();

export type SavedPlan = z.infer<typeof SavedPlanSchema>;

const sha = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/** What the plan depends on in the repository: every entity file as loaded, and flagops.yaml. */
function fileHashes(result: PlanResult): Record<string, string> {
  const files: Record<string, string> = { 'flagops.yaml': sha(result.repo.config) };
  for (const entity of [...result.repo.entities].sort((a, b) => (a.file < b.file ? -1 : 1))) files[entity.file] = sha([entity.data, entity.drift ?? null]);
  return files;
}

/** Every live entity's version, as `kind/id`. */
function liveVersions(result: PlanResult): Record<string, number | null> {
  const live: Record<string, number | null> = {};
  for (const [folder, entities] of result.live.entities) {
    for (const entity of entities) live[`${folder}/${entity.id}`] = typeof entity.data['version'] === 'number' ? entity.data['version'] : null;
  }
  return Object.fromEntries(Object.entries(live).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export interface SavePlanContext {
  directory: string;
  console: string;
  commit: string | undefined;
  prune: boolean;
  targets: readonly string[];
  planHash: string;
  now: Date;
}

export function savedPlanOf(result: PlanResult, context: SavePlanContext): SavedPlan {
  const files = fileHashes(result);
  return {
    flagopsSavedPlan: SAVED_PLAN_VERSION,
    createdAt: context.now.toISOString(),
    directory: context.directory,
    console: context.console,
    options: { prune: context.prune, targets: [...context.targets] },
    against: { commit: context.commit ?? null, contentHash: sha(files), files, live: liveVersions(result) },
    planHash: context.planHash,
    plan: planToJson(result.plan),
  };
}

export function renderSavedPlan(saved: SavedPlan): string {
  return `${JSON.stringify(saved, null, 2)}\n`;
}

/** Reads a saved plan; anything else (a plan printed with --format json, a hand-edited file) is refused by field. */
export function parseSavedPlan(text: string, file: string): SavedPlan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InputError(`${file} is not a saved plan.`, [{ property: file, errorMessage: 'is not JSON; write one with flagops plan --out FILE' }]);
  }
  const parsed = SavedPlanSchema.safeParse(json);
  if (!parsed.success) {
    throw new InputError(
      `${file} is not a saved plan of this flagops version.`,
      parsed.error.issues.map((issue) => ({ property: `${file}: ${issue.path.join('.') || '(top level)'}`, errorMessage: issue.message })),
    );
  }
  return parsed.data;
}

const MAX_NAMED = 10;

function diffKeys<T>(before: Record<string, T>, after: Record<string, T>, describe: (key: string, old: T | undefined, now: T | undefined) => string): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.filter((k) => before[k] !== after[k]).map((k) => describe(k, before[k], after[k]));
}

/**
 * Throws a ConflictError naming what moved since the plan was saved: config files changed, added or
 * removed; live entities changed, created or deleted in the console; or, with both unchanged, a plan
 * that no longer computes the same (e.g. another key now owns an entity's last change).
 */
export function verifySavedPlan(saved: SavedPlan, result: PlanResult, planHash: string): void {
  const files = fileHashes(result);
  const repoMoved = diffKeys(saved.against.files, files, (file, old, now) => (old === undefined ? `${file} added` : now === undefined ? `${file} removed` : `${file} changed`));
  const consoleMoved = diffKeys(saved.against.live, liveVersions(result), (key, old, now) =>
    old === undefined ? `${key} created` : now === undefined ? `${key} deleted` : `${key} version ${String(old)} → ${String(now)}`,
  );
  const name = (list: string[]): string => `${list.slice(0, MAX_NAMED).join(', ')}${list.length > MAX_NAMED ? `, and ${list.length - MAX_NAMED} more` : ''}`;
  const moved: string[] = [];
  if (repoMoved.length > 0) moved.push(`the repository moved (${name(repoMoved)})`);
  if (consoleMoved.length > 0) moved.push(`the console moved (${name(consoleMoved)})`);
  if (moved.length === 0 && planHash !== saved.planHash) moved.push(`the plan computes differently now (plan ${planHash}, saved ${saved.planHash})`);
  if (moved.length > 0) {
    throw new ConflictError(`Refusing the saved plan ${saved.planHash} from ${saved.createdAt}: ${moved.join('; ')}. Nothing was applied; run flagops plan --out again and review the new plan.`);
  }
}
