/**
 * The plan: what applying the repository would change in the console (or what a pull request
 * changes between two refs). Pure: built from canonical entities, rendered by render-plan-*.ts.
 */
import { ARCHIVED_FIELD } from '../../schemas/entity-file.js';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { consoleOwnsTags, keepOwned } from './console-owned.js';
import type { PolicyVerdict } from './bridge-policies.js';
import { diffEntities, type FieldChange } from './diff.js';
import { jsonEqual } from './json-equal.js';
import { normalizeEntity, normalizeLive } from './normalize.js';
import type { JsonObject, RepoEntity } from './repo-entity.js';

export type PlanAction = 'create' | 'update' | 'delete' | 'drift';

export interface PlanChange {
  /** Config-repo folder: gates, dynamic_configs, ... */
  kind: string;
  id: string;
  action: PlanAction;
  /** Repository file that declares the entity; null for a delete planned against a console. */
  file: string | null;
  fields: FieldChange[];
  /** For a drift: what the entity's drift policy says to do about it. */
  drift?: { policy: DriftPolicy; lastModifier: string | null };
  /** Set when the change archives or unarchives the entity (its `archived` field changes). */
  lifecycle?: 'archive' | 'unarchive';
  /** The verdict of each policy the bridge runs on the change (plan-policies.ts); empty when none applies. */
  policies?: PolicyVerdict[];
}

/** Archive or unarchive, when the entity's `archived` state differs between old and new. */
function lifecycleOf(fields: readonly FieldChange[]): Pick<PlanChange, 'lifecycle'> {
  const archived = fields.find((f) => f.path === ARCHIVED_FIELD);
  if (archived === undefined) return {};
  return { lifecycle: archived.new === true ? 'archive' : 'unarchive' };
}

export type DriftPolicy = 'detect' | 'heal' | 'adopt';

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  drift: number;
  unchanged: number;
  /** Live entities no file declares that the plan leaves alone (prune off, or not tagged as managed). */
  untracked: number;
}

/**
 * Where the console and the file differ on fields the console owns: shown, never applied. Each field's
 * `old` is the console's value, `new` the file's.
 */
export interface OwnedDifference {
  kind: string;
  id: string;
  file: string;
  fields: FieldChange[];
}

export interface Plan {
  /** Where the desired state came from: a directory or `git <ref>`. */
  desired: string;
  /** What it is compared with: a console URL or `git <ref>`. */
  live: string;
  summary: PlanSummary;
  changes: PlanChange[];
  /** Information only: no change, and `--detailed-exitcode` does not count it. Empty when left out. */
  owned?: OwnedDifference[];
  warnings: string[];
}

/** The entities the plan compares against, per folder. */
export interface LiveState {
  label: string;
  /** `console`: console reads (generated ids and creator stamps ignored where files are silent); `files`: another ref of the repository. */
  source: 'console' | 'files';
  entities: ReadonlyMap<string, readonly LiveEntity[]>;
  /** What reading it left out that the plan must say (base files of a ref that did not load). */
  warnings?: readonly string[];
}

export interface LiveEntity {
  id: string;
  data: JsonObject;
  /** Set when the live side is a ref of the repository. */
  file?: string;
}

export interface PlanOptions {
  prune: { enabled: boolean; managedTag: string; maxDeletes: number };
  /**
   * Drift: a managed entity whose last change was made by someone other than `identity` (the user of
   * the key flagops applies with) and that no longer matches its file was edited outside git.
   */
  drift?: { identity: string; policyOf: (folder: string, id: string) => DriftPolicy };
  /** The fields the console owns of an entity (`ownership.console`); applies only against a console. */
  owned?: (folder: string, id: string) => readonly string[];
}

/**
 * The managed tag is flagops' own bookkeeping: plans neither add it nor report it. Takes a canonical
 * form its caller just built (and owns): the tag list is replaced in place, not copied with the entity.
 */
function withoutTag(data: JsonObject, tag: string): JsonObject {
  if (Array.isArray(data['tags']) && data['tags'].includes(tag)) data['tags'] = data['tags'].filter((t) => t !== tag);
  return data;
}

const ORDER = new Map(ENTITY_SCHEMAS.map((e, i) => [e.folder, i]));

/** Changes in dependency order of their kind (segments before gates, ...), then by id. */
export function compareChanges(a: Pick<PlanChange, 'kind' | 'id'>, b: Pick<PlanChange, 'kind' | 'id'>): number {
  const ka = ORDER.get(a.kind) ?? ORDER.size;
  const kb = ORDER.get(b.kind) ?? ORDER.size;
  if (ka !== kb) return ka - kb;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Fields worth showing for a whole entity created or deleted: those that differ from the kind's defaults. */
function wholeEntityFields(entry: EntitySchemaEntry, canonical: JsonObject, side: 'old' | 'new'): FieldChange[] {
  return Object.entries(canonical)
    .filter(([key, value]) => key === entry.idField || key === 'name' || !(key in entry.defaults) || !jsonEqual(value, entry.defaults[key]))
    .map(([path, value]) => ({ path, [side]: value }));
}

function isManaged(data: JsonObject, tag: string): boolean {
  return Array.isArray(data['tags']) && data['tags'].includes(tag);
}

/**
 * A file's entity in the canonical form plans compare. Its console-owned paths are named in its tags
 * (apply writes them with the entity), so the console can show which fields it owns.
 */
export function desiredCanonical(entry: EntitySchemaEntry, data: JsonObject, managedTag: string, owned: readonly string[] = []): JsonObject {
  const canonical = withoutTag(normalizeEntity(entry, data), managedTag);
  if (owned.length > 0 && 'tags' in entry.defaults) {
    const tags = Array.isArray(canonical['tags']) ? canonical['tags'] : [];
    canonical['tags'] = [...tags, ...consoleOwnsTags(owned).filter((t) => !tags.includes(t))];
  }
  return canonical;
}

/** A live entity (console read, or another ref's file) in the canonical form, aligned with the desired one. */
export function liveCanonical(entry: EntitySchemaEntry, data: JsonObject, want: JsonObject, source: LiveState['source'], managedTag: string): JsonObject {
  return withoutTag(source === 'console' ? normalizeLive(entry, data, want) : normalizeEntity(entry, data), managedTag);
}

/** Where a console entity differs from what its file declares, but for the fields the console owns (empty: they match). */
export function differencesFromFile(entry: EntitySchemaEntry, fileData: JsonObject, consoleData: JsonObject, managedTag: string, owned: readonly string[] = []): FieldChange[] {
  const want = desiredCanonical(entry, fileData, managedTag, owned);
  const have = liveCanonical(entry, consoleData, want, 'console', managedTag);
  return diffEntities(have, keepOwned(want, have, owned));
}

export function buildPlan(desiredLabel: string, desired: readonly RepoEntity[], live: LiveState, options: PlanOptions): Plan {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0, drift: 0, unchanged: 0, untracked: 0 };
  const changes: PlanChange[] = [];
  const owned: OwnedDifference[] = [];
  // Between two refs both sides are files: nothing is the console's.
  const ownedOf = live.source === 'console' ? options.owned : undefined;
  /** Managed entities no file declares, of kinds the console cannot delete. */
  const undeletable: string[] = [];
  for (const entry of ENTITY_SCHEMAS) {
    const liveById = new Map((live.entities.get(entry.folder) ?? []).map((e) => [e.id, e]));
    const declared = new Set<string>();
    for (const entity of desired) {
      if (entity.folder !== entry.folder) continue;
      declared.add(entity.id);
      const paths = ownedOf?.(entry.folder, entity.id) ?? [];
      const want = desiredCanonical(entry, entity.data, options.prune.managedTag, paths);
      const current = liveById.get(entity.id);
      if (!current) {
        summary.create++;
        const fields = wholeEntityFields(entry, want, 'new');
        changes.push({ kind: entry.folder, id: entity.id, action: 'create', file: entity.file, fields, ...lifecycleOf(fields) });
        continue;
      }
      const have = liveCanonical(entry, current.data, want, live.source, options.prune.managedTag);
      const effective = keepOwned(want, have, paths);
      const fields = diffEntities(have, effective);
      if (effective !== want) {
        const differ = diffEntities(effective, want);
        if (differ.length > 0) owned.push({ kind: entry.folder, id: entity.id, file: entity.file, fields: differ });
      }
      const modifier = typeof current.data['lastModifierEmail'] === 'string' ? current.data['lastModifierEmail'] : null;
      if (fields.length === 0) summary.unchanged++;
      else if (live.source === 'console' && options.drift && isManaged(current.data, options.prune.managedTag) && modifier !== options.drift.identity) {
        summary.drift++;
        changes.push({ kind: entry.folder, id: entity.id, action: 'drift', file: entity.file, fields, drift: { policy: options.drift.policyOf(entry.folder, entity.id), lastModifier: modifier }, ...lifecycleOf(fields) });
      } else {
        summary.update++;
        changes.push({ kind: entry.folder, id: entity.id, action: 'update', file: entity.file, fields, ...lifecycleOf(fields) });
      }
    }
    for (const [id, current] of liveById) {
      if (declared.has(id)) continue;
      if (!options.prune.enabled || !isManaged(current.data, options.prune.managedTag)) {
        summary.untracked++;
        continue;
      }
      if (entry.deletable === false) {
        summary.untracked++;
        undeletable.push(`${entry.folder}/${id}`);
        continue;
      }
      summary.delete++;
      const have = live.source === 'console' ? normalizeLive(entry, current.data) : normalizeEntity(entry, current.data);
      changes.push({ kind: entry.folder, id, action: 'delete', file: current.file ?? null, fields: wholeEntityFields(entry, have, 'old') });
    }
  }
  changes.sort(compareChanges);
  const warnings: string[] = [...(live.warnings ?? [])];
  if (undeletable.length > 0) {
    const one = undeletable.length === 1;
    warnings.push(`No file declares ${undeletable.join(', ')}, and the console has no delete for ${one ? 'its kind: it stays' : 'their kind: they stay'}; remove the ${options.prune.managedTag} tag in the console to stop managing ${one ? 'it' : 'them'}.`);
  }
  if (summary.delete > options.prune.maxDeletes) {
    warnings.push(`${summary.delete} ${summary.delete === 1 ? 'delete exceeds' : 'deletes exceed'} prune.maxDeletes (${options.prune.maxDeletes}): apply will refuse this plan.`);
  }
  owned.sort(compareChanges);
  return { desired: desiredLabel, live: live.label, summary, changes, owned, warnings };
}

export const hasChanges = (plan: Plan): boolean => plan.changes.length > 0;

/**
 * The plan limited to the `--target` entities (`gates/x`), nothing else — not even what they depend
 * on. What it leaves out is said in a warning, so a targeted apply never hides the rest of the drift.
 */
export function limitToTargets(plan: Plan, targets: readonly string[]): Plan {
  if (targets.length === 0) return plan;
  const wanted = new Set(targets);
  const kept = plan.changes.filter((c) => wanted.has(`${c.kind}/${c.id}`));
  const owned = (plan.owned ?? []).filter((o) => wanted.has(`${o.kind}/${o.id}`));
  const skipped = plan.changes.filter((c) => !wanted.has(`${c.kind}/${c.id}`)).map((c) => `${ACTION_WORD[c.action]} ${c.kind}/${c.id}`);
  const summary: PlanSummary = { ...plan.summary, create: 0, update: 0, delete: 0, drift: 0 };
  for (const change of kept) summary[change.action]++;
  // The mass-delete warning counts every delete; it stands only while the targets keep them all.
  const warnings = summary.delete === plan.summary.delete ? [...plan.warnings] : plan.warnings.filter((w) => !w.includes('prune.maxDeletes'));
  if (skipped.length > 0) warnings.push(`--target: ${skipped.length} change${skipped.length === 1 ? '' : 's'} outside the targets skipped: ${skipped.join(', ')}.`);
  return { ...plan, summary, changes: kept, owned, warnings };
}

const ACTION_WORD: Readonly<Record<PlanAction, string>> = { create: 'create', update: 'update', delete: 'delete', drift: 'drift' };
