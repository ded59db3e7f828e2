import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { ownedPathsOf } from '../core/console-owned.js';
import type { PlanChange } from '../core/plan.js';
import type { RepoReader } from '../source/repo-reader.js';
import type { ConsoleClient, JsonObject } from './console-client.js';
import { planAgainstConsole } from './plan-service.js';

export type EntityState = 'in_sync' | 'drifted' | 'to_create' | 'to_update' | 'to_delete';
export const ENTITY_STATES: readonly EntityState[] = ['in_sync', 'drifted', 'to_create', 'to_update', 'to_delete'];

/** Reviews that can still be approved, committed or validated: work in flight for the entity. */
const OPEN_REVIEW_STATUSES = ['pending', 'approved', 'pending_webhook_validation', 'approved_webhook_validation', 'failed_webhook_validation', 'validation_timed_out', 'stale'];

/**
 * What `flagops apply` writes in each review description (apply-service):
 * `flagops apply: <action> <kind>/<id> (plan <hash>[, <fact> <value>]*[, commit <sha>])`.
 */
export function parseApplyDescription(description: string): { plan: string; commit: string | null } | undefined {
  const facts = /^flagops apply: \w+ \S+ \(([^)]*)\)/.exec(description)?.[1];
  if (facts === undefined) return undefined;
  const fields = new Map(facts.split(', ').map((fact) => [fact.slice(0, fact.indexOf(' ')), fact.slice(fact.indexOf(' ') + 1)] as const));
  const plan = fields.get('plan');
  return plan === undefined ? undefined : { plan, commit: fields.get('commit') ?? null };
}

export interface EntityStatus {
  /** Config-repo folder: gates, dynamic_configs, ... */
  kind: string;
  id: string;
  file: string | null;
  state: EntityState;
  drift: { policy: string; lastModifier: string | null } | null;
  /** The newest review of the entity still in flight, whoever submitted it. */
  pendingReview: { reviewID: string; status: string; action: string; submitter: string | null; createdTime: number | null; fromApply: boolean } | null;
  /**
   * The last change flagops apply made: from its committed review (plan hash and git commit from the
   * description), or for kinds written directly, from the audit log (no commit is recorded there).
   */
  lastApplied: { time: number; commit: string | null; plan: string | null; reviewID: string | null; by: string } | null;
  /** The fields the console owns once the entity exists (flagops.yaml's `ownership.console`); empty when git owns all. */
  consoleOwns: string[];
}

export interface StatusReport {
  desired: string;
  console: string;
  /** The user apply acts as (the key's): its changes are flagops', anyone else's are drift. */
  identity: string;
  entities: EntityStatus[];
  summary: Record<EntityState, number> & { pendingReviews: number };
  /** Applies running now: the console's apply locks (repository and branch, who, until when unless renewed). */
  applyLocks: { name: string; heldBy: string; description: string; expiresTime: number }[];
}

const STATE_OF: Record<PlanChange['action'], EntityState> = { create: 'to_create', update: 'to_update', delete: 'to_delete', drift: 'drifted' };

/** Per entity of the repository (and per live entity a prune would delete): how it stands in the console. */
export async function repoStatus(input: { desired: RepoReader; client: ConsoleClient; desiredLabel?: string }): Promise<StatusReport> {
  const { client } = input;
  const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  const num = (value: unknown): number | null => (typeof value === 'number' ? value : null);
  // The plan reads every kind at once; the review lists follow, so no more requests than that are in
  // flight on one abort signal (node warns above ten listeners).
  const { plan, repo } = await planAgainstConsole({ desired: input.desired, client, desiredLabel: input.desiredLabel });
  const [identity, open, committed, locks] = await Promise.all([
    client.request<{ userEmail?: unknown }>('GET', '/console/v1/whoami').then((r) => String(r.data?.userEmail ?? '')),
    client.listAll<JsonObject>(`/console/v1/reviews?status=${OPEN_REVIEW_STATUSES.join(',')}`),
    client.listAll<JsonObject>('/console/v1/reviews?status=committed'),
    client.listAll<JsonObject>('/console/v1/apply_locks'),
  ]);
  const folderOf = new Map(ENTITY_SCHEMAS.map((e) => [e.kind, e.folder]));
  const keyOf = (item: JsonObject, kindField: string, idField: string): string => `${folderOf.get(String(item[kindField])) ?? String(item[kindField])}/${String(item[idField])}`;

  // Lists come newest first: the first one seen per entity is the one to show.
  const pending = new Map<string, EntityStatus['pendingReview']>();
  for (const review of open) {
    const key = keyOf(review, 'configType', 'configName');
    if (pending.has(key)) continue;
    pending.set(key, {
      reviewID: String(review['reviewID']),
      status: String(review['status']),
      action: String(review['action'] ?? 'update'),
      submitter: str(review['submitter']),
      createdTime: num(review['createdTime']),
      fromApply: parseApplyDescription(String(review['description'] ?? '')) !== undefined,
    });
  }
  const applied = new Map<string, NonNullable<EntityStatus['lastApplied']>>();
  for (const review of committed) {
    const facts = parseApplyDescription(String(review['description'] ?? ''));
    const key = keyOf(review, 'configType', 'configName');
    if (!facts || applied.has(key)) continue;
    applied.set(key, {
      time: num(review['committedTime']) ?? num(review['lastModifiedTime']) ?? 0,
      commit: facts.commit,
      plan: facts.plan,
      reviewID: String(review['reviewID']),
      by: str(review['committer']) ?? identity,
    });
  }
  // Kinds without reviews are written directly: their last change by apply's user is in the audit log.
  if (identity !== '') {
    const audit = await client.listAll<JsonObject>(`/console/v1/audit_logs?actor=${encodeURIComponent(identity)}`);
    for (const entry of audit) {
      const key = keyOf(entry, 'kind', 'entityId');
      if (applied.has(key) || !folderOf.has(String(entry['kind'])) || entry['reviewId'] !== null) continue;
      applied.set(key, { time: num(entry['time']) ?? 0, commit: null, plan: null, reviewID: null, by: identity });
    }
  }

  const changes = new Map(plan.changes.map((c) => [`${c.kind}/${c.id}`, c]));
  const rows: { kind: string; id: string; file: string | null }[] = repo.entities.map((e) => ({ kind: e.folder, id: e.id, file: e.file }));
  for (const change of plan.changes) if (change.action === 'delete') rows.push({ kind: change.kind, id: change.id, file: null });
  const order = new Map(ENTITY_SCHEMAS.map((e, i) => [e.folder, i]));
  rows.sort((a, b) => (order.get(a.kind) ?? 0) - (order.get(b.kind) ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const summary: StatusReport['summary'] = { in_sync: 0, drifted: 0, to_create: 0, to_update: 0, to_delete: 0, pendingReviews: 0 };
  const entities = rows.map((row): EntityStatus => {
    const key = `${row.kind}/${row.id}`;
    const change = changes.get(key);
    const state = change ? STATE_OF[change.action] : 'in_sync';
    const pendingReview = pending.get(key) ?? null;
    summary[state]++;
    if (pendingReview) summary.pendingReviews++;
    return {
      ...row,
      state,
      drift: change?.drift ? { policy: change.drift.policy, lastModifier: change.drift.lastModifier } : null,
      pendingReview,
      lastApplied: applied.get(key) ?? null,
      consoleOwns: row.file === null ? [] : ownedPathsOf(repo.config.ownership.console, row.kind, row.id),
    };
  });
  const applyLocks = locks.map((lock) => ({ name: String(lock['name']), heldBy: String(lock['heldBy']), description: String(lock['description'] ?? ''), expiresTime: num(lock['expiresTime']) ?? 0 }));
  return { desired: plan.desired, console: client.baseUrl, identity, entities, summary, applyLocks };
}
