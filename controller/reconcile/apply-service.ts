import { createHash } from 'node:crypto';
import { ARCHIVED_FIELD } from '../../schemas/entity-file.js';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { REVIEW_MAX_WAIT_MS } from '../../schemas/review.js';
import { consoleOwnsTags, keepOwned, ownedPathsOf } from '../core/console-owned.js';
import { referencesOf } from '../core/cross-references.js';
import type { Plan, PlanChange } from '../core/plan.js';
import type { RepoEntity } from '../core/repo-entity.js';
import { ConflictError, DomainError, formatFieldError, InputError, NotAllowedError, NotFoundError, type FieldError } from '../errors.js';
import type { RepoReader } from '../source/repo-reader.js';
import type { ConsoleClient, JsonObject } from './console-client.js';
import { planAgainstConsole, type PlanResult } from './plan-service.js';

/** Folders of the kinds the console changes through reviews; the others are written directly. */
const REVIEWED = new Set(ENTITY_SCHEMAS.filter((e) => e.reviewable).map((e) => e.folder));

export type OutcomeStatus = 'committed' | 'written' | 'adopted' | 'reported' | 'failed' | 'blocked' | 'waiting';

export interface EntityOutcome {
  kind: string;
  id: string;
  action: PlanChange['action'];
  status: OutcomeStatus;
  /** Review the change went through, for reviewed kinds. */
  reviewID?: string;
  message: string;
  /** What the console named as wrong with the change (its 400's `errors[]`), also in the message. */
  errors?: FieldError[];
}

export type ApplyEvent =
  | { type: 'plan'; plan: Plan; hash: string }
  | { type: 'outcome'; outcome: EntityOutcome; done: number; total: number }
  | { type: 'waiting'; kind: string; id: string; reviewID: string; on: string };

export interface ApplyInput {
  desired: RepoReader;
  desiredLabel?: string;
  /** Submits and commits; never a bypass. */
  client: ConsoleClient;
  /** A second user's key that approves the submitted reviews; without it apply waits for humans. */
  approver?: ConsoleClient;
  prune?: boolean;
  /** Deletes above prune.maxDeletes are refused unless forced. */
  force?: boolean;
  /** Git commit the repository is at, recorded in every review's description. */
  commit?: string;
  /** Rewrites an entity file from the live state (drift policy adopt). */
  adopt?: (change: PlanChange, live: JsonObject) => Promise<void>;
  onEvent?: (event: ApplyEvent) => void;
  /** Pause between long polls of a review that still waits (the console holds each poll up to 25 s). */
  pollIntervalMs?: number;
  /** How long to wait for approvals and validations before giving up on a review. */
  waitTimeoutMs?: number;
  concurrency?: number;
  sleep?: (ms: number) => Promise<void>;
  clock?: () => number;
  /** `--target kind/id`: only these entities are applied. */
  targets?: readonly string[];
  /**
   * Checked after planning, before anything is written: a saved plan throws here when the repository
   * or the console moved since it was made.
   */
  verify?: (result: PlanResult, hash: string) => void;
  /** Asked once the plan is shown and before anything is written; false applies nothing. */
  confirm?: (plan: Plan, hash: string) => Promise<boolean>;
  /**
   * Aborted on SIGINT/SIGTERM: apply stops, and cancels the reviews it opened that are not final
   * through `canceler` (a client of the same user that this signal does not abort). Submissions go
   * through `canceler` too: an aborted submission could open a review whose id apply never learns.
   */
  signal?: AbortSignal;
  canceler?: ConsoleClient;
}

export interface ApplyReport {
  plan: Plan;
  planHash: string;
  outcomes: EntityOutcome[];
  /** The plan after applying: empty when everything was applied. */
  replan: Plan;
  /** True when the confirmation was declined: nothing was written. */
  declined?: boolean;
  ok: boolean;
}

/** The review statuses from which a review can still be committed or canceled. */
const OPEN_STATUSES = ['pending', 'approved', 'pending_webhook_validation', 'approved_webhook_validation', 'validation_timed_out'];

/** Reviews apply opens are recognised by their description: `flagops apply: update gates/x (plan …, change …, …)`. */
const OWN_REVIEW = /^flagops apply: (\w+) ([a-z_]+)\/(\S+) \(plan [0-9a-f]+, change ([0-9a-f]+)/;

/** The identity of one change: the same change of the same entity from the same live state. */
export function changeHash(change: PlanChange): string {
  return createHash('sha256').update(JSON.stringify([change.kind, change.id, change.action, change.fields])).digest('hex').slice(0, 12);
}

const entryOf = (folder: string): EntitySchemaEntry => {
  const entry = ENTITY_SCHEMAS.find((e) => e.folder === folder);
  if (!entry) throw new InputError(`Unknown kind '${folder}'.`);
  return entry;
};

/** A plan's identity: the same changes give the same hash, whatever the order they were listed in. */
export function planHash(plan: Plan): string {
  const canonical = JSON.stringify(plan.changes.map((c) => [c.kind, c.id, c.action, c.fields]));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 12);
}

/** `rules[name=ramp].passPercentage` → `rules`; `rules#order` (a reordering) → `rules`. */
function topLevelKey(path: string): string {
  return /^[^.[#]+/.exec(path)?.[0] ?? path;
}

/**
 * Turns the plan into console changes: reviews for gates, dynamic configs, segments and experiments
 * (approved by a second key or by humans, committed, followed through pre-commit validation), direct
 * writes for the other kinds. Creates go in dependency order, deletes in reverse; a failed entity
 * blocks only the entities that refer to it. Afterwards the repository is planned again.
 */
export async function applyRepo(input: ApplyInput): Promise<ApplyReport> {
  const sleep = input.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const clock = input.clock ?? Date.now;
  const interrupted = (): boolean => input.signal?.aborted === true;
  let planned: PlanResult;
  try {
    planned = await planAgainstConsole({ desired: input.desired, client: input.client, prune: input.prune, desiredLabel: input.desiredLabel, targets: input.targets });
  } catch (error) {
    if (interrupted()) throw new ConflictError('Interrupted while planning: nothing was applied.');
    throw error;
  }
  const { plan, repo } = planned;
  const hash = planHash(plan);
  input.verify?.(planned, hash);
  input.onEvent?.({ type: 'plan', plan, hash });
  const maxDeletes = repo.config.prune.maxDeletes;
  if (plan.summary.delete > maxDeletes && !input.force) {
    throw new ConflictError(`Refusing to delete ${plan.summary.delete} entities: more than prune.maxDeletes (${maxDeletes}). Check the plan, then re-run with --force.`);
  }
  if (plan.changes.length > 0 && input.confirm && !(await input.confirm(plan, hash))) {
    return { plan, planHash: hash, outcomes: [], replan: plan, declined: true, ok: false };
  }
  // Reviews this run opened or resumed that may still be open: canceled if the run is interrupted.
  const opened = new Map<string, string>();
  const leftovers = await ownOpenReviews(input.client, plan, planned.identity).catch((error: unknown) => {
    throw interrupted() ? new ConflictError('Interrupted: nothing was applied.') : error;
  });
  const managedTag = repo.config.prune.managedTag;
  const files = new Map(repo.entities.map((e) => [`${e.folder}/${e.id}`, e]));
  const description = (change: PlanChange, step: string = change.action): string =>
    `flagops apply: ${step} ${change.kind}/${change.id} (plan ${hash}, change ${changeHash(change)}${input.commit ? `, commit ${input.commit}` : ''})`;

  const outcomes = new Map<string, EntityOutcome>();
  const failed = new Set<string>();
  const total = plan.changes.length;
  const record = (outcome: EntityOutcome): void => {
    outcomes.set(`${outcome.kind}/${outcome.id}`, outcome);
    if (outcome.status === 'failed' || outcome.status === 'blocked' || outcome.status === 'waiting') failed.add(`${outcome.kind}/${outcome.id}`);
    input.onEvent?.({ type: 'outcome', outcome, done: outcomes.size, total });
  };

  const owned = (entity: RepoEntity): string[] => ownedPathsOf(repo.config.ownership.console, entity.folder, entity.id);
  const liveData = (entity: RepoEntity): JsonObject | undefined => planned.live.entities.get(entity.folder)?.find((e) => e.id === entity.id)?.data;

  /**
   * The request body of a create (`all`) or of the changed top-level fields. An update keeps the
   * console's value of every field the console owns, also inside a field it sends whole (the
   * passPercentage of each rule when `rules` changes): apply never writes an owned field.
   */
  const bodyFor = (entry: EntitySchemaEntry, entity: RepoEntity, keys: string[] | 'all'): JsonObject => {
    let body: JsonObject = {};
    // `archived` is no request field: archive and unarchive reviews carry it.
    const wanted = (keys === 'all' ? Object.keys(entity.data) : keys).filter((key) => key !== ARCHIVED_FIELD);
    for (const key of wanted) {
      if (key in entity.data) body[key] = entity.data[key];
      else if (`${key}Json5` in entity.data) body[`${key}Json5`] = entity.data[`${key}Json5`];
      else if (key in entry.defaults) body[key] = entry.defaults[key];
    }
    const paths = owned(entity);
    const live = keys === 'all' ? undefined : liveData(entity);
    if (live !== undefined) body = keepOwned(body, live, paths);
    // Entities apply writes carry the managed tag, so prune and drift know them; plans ignore it. The
    // console-owned paths are named in tags too, for the console to show.
    if ('tags' in entry.defaults) {
      const tags = Array.isArray(entity.data['tags']) ? (entity.data['tags'] as string[]) : [];
      const extra = [managedTag, ...consoleOwnsTags(paths)].filter((tag) => !tags.includes(tag));
      body['tags'] = [...tags, ...extra];
    }
    return body;
  };

  /** Waits while the review keeps `status`, with the console's long poll (no polling storm). */
  const waitWhile = async (change: PlanChange, reviewID: string, status: string, on: string, announceFirst: boolean): Promise<JsonObject> => {
    const deadline = clock() + (input.waitTimeoutMs ?? 30 * 60_000);
    let announced = announceFirst;
    if (announceFirst) input.onEvent?.({ type: 'waiting', kind: change.kind, id: change.id, reviewID, on });
    for (;;) {
      const waitMs = Math.max(0, Math.min(REVIEW_MAX_WAIT_MS, deadline - clock()));
      const review = (await input.client.request('GET', `/console/v1/reviews/${encodeURIComponent(reviewID)}`, undefined, { query: { waitWhile: status, waitMs: String(waitMs) } })).data ?? {};
      if (review['status'] !== status || clock() >= deadline) return review;
      if (!announced) {
        input.onEvent?.({ type: 'waiting', kind: change.kind, id: change.id, reviewID, on });
        announced = true;
      }
      if (input.pollIntervalMs) await sleep(input.pollIntervalMs);
    }
  };

  /**
   * The reviews one change takes, in order: the change itself (its fields but `archived`), preceded
   * by an unarchive (an archived entity refuses some writes) or followed by an archive.
   */
  const stepsOf = (entry: EntitySchemaEntry, change: PlanChange, entity: RepoEntity | undefined): ReviewStep[] => {
    const steps: ReviewStep[] = [];
    const keys = [...new Set(change.fields.map((f) => topLevelKey(f.path)))].filter((key) => key !== ARCHIVED_FIELD);
    if (change.lifecycle === 'unarchive') steps.push({ word: 'unarchive', submit: { action: 'unarchive' } });
    if (change.action === 'create') steps.push({ word: 'create', submit: { action: 'create', change: bodyFor(entry, entity!, 'all') } });
    else if (change.action === 'delete') steps.push({ word: 'delete', submit: { action: 'delete' } });
    else if (keys.length > 0 || change.lifecycle === undefined) steps.push({ word: change.action, submit: { change: bodyFor(entry, entity!, keys) } });
    if (change.lifecycle === 'archive') steps.push({ word: 'archive', submit: { action: 'archive' } });
    return steps;
  };

  const viaReview = async (entry: EntitySchemaEntry, change: PlanChange, entity: RepoEntity | undefined): Promise<EntityOutcome> => {
    const path = `/console/v1/${entry.folder}/${encodeURIComponent(change.id)}`;
    const steps = stepsOf(entry, change, entity);
    // An earlier run's review of this very change (and step) is resumed; one of another change is
    // canceled, so the entity never has two of apply's reviews open.
    const earlier = leftovers.get(`${change.kind}/${change.id}`) ?? [];
    const resumable = (step: ReviewStep): OwnReview | undefined => earlier.find((r) => r.changeHash === changeHash(change) && r.step === step.word);
    const kept = new Set(steps.map(resumable).filter((r): r is OwnReview => r !== undefined));
    for (const old of earlier) if (!kept.has(old)) await cancelReview(input.canceler ?? input.client, path, String(old.review['reviewID']));
    const committed: string[] = [];
    let outcome: EntityOutcome | undefined;
    for (const step of steps) {
      outcome = await reviewStep(entry, change, entity, step, resumable(step)?.review);
      if (outcome.status !== 'committed') return outcome;
      committed.push(outcome.reviewID ?? '');
    }
    if (outcome === undefined) throw new InputError(`Nothing to apply for ${change.kind}/${change.id}.`);
    return steps.length === 1 ? outcome : { ...outcome, message: `committed through reviews ${committed.join(', ')}` };
  };

  const reviewStep = async (entry: EntitySchemaEntry, change: PlanChange, entity: RepoEntity | undefined, step: ReviewStep, earlier: JsonObject | undefined): Promise<EntityOutcome> => {
    const path = `/console/v1/${entry.folder}/${encodeURIComponent(change.id)}`;
    let review: JsonObject | undefined = earlier;
    const resumed = review !== undefined;
    if (!review) {
      const submit: JsonObject = { description: description(change, step.word), ...step.submit };
      review = (await (input.canceler ?? input.client).request('POST', `${path}/reviews`, submit)).data ?? {};
    }
    const reviewID = String(review['reviewID']);
    opened.set(reviewID, path);
    if (interrupted()) return { kind: change.kind, id: change.id, action: change.action, status: 'waiting', reviewID, message: 'interrupted' };
    const base = { kind: change.kind, id: change.id, action: change.action, reviewID };
    const status = (): string => String(review?.['status']);

    const waitsOn = reviewersNote(entity);
    if (status() === 'pending') {
      if (input.approver) {
        try {
          review = (await input.approver.request('PUT', `${path}/reviews/${encodeURIComponent(reviewID)}/approve`, { comment: `flagops apply plan ${hash}` })).data ?? {};
        } catch (error) {
          // The approver may not approve this review (not an allowed reviewer, or lacks the permission):
          // no later run could either, so the review is canceled rather than left open, as Ctrl-C does.
          if (!(error instanceof NotAllowedError) || interrupted()) throw error;
          const canceled = await cancelReview(input.canceler ?? input.client, path, reviewID).catch(() => false);
          if (canceled) opened.delete(reviewID);
          return { ...base, status: 'failed', message: `review ${reviewID} could not be approved with the approver key: ${error.message}${canceled ? `; canceled review ${reviewID}` : ''}` };
        }
      } else review = await waitWhile(change, reviewID, 'pending', waitsOn, true);
    }
    if (status() === 'pending') return { ...base, status: 'waiting', message: `review ${reviewID}${resumed ? ' (from an earlier run)' : ''} still waits for ${waitsOn}` };
    if (status() === 'pending_webhook_validation') review = await waitWhile(change, reviewID, 'pending_webhook_validation', 'pre-commit webhook validation', true);
    if (status() === 'pending_webhook_validation') return { ...base, status: 'waiting', message: `review ${reviewID} (from an earlier run) still pending validation` };
    if (!['approved', 'approved_webhook_validation', 'validation_timed_out', 'committed'].includes(status())) {
      return { ...base, status: 'failed', message: `review ${reviewID} was ${status()}` };
    }
    if (status() === 'committed') return { ...base, status: 'committed', message: `committed through review ${reviewID}` };

    // The console holds this commit while the pre-commit validation it starts runs, and completes it
    // when the webhook approves: one request instead of commit, long poll, commit.
    const awaitValidationMs = Math.min(REVIEW_MAX_WAIT_MS, input.waitTimeoutMs ?? REVIEW_MAX_WAIT_MS);
    review = (await input.client.request('PUT', `${path}/reviews/${encodeURIComponent(reviewID)}/commit`, { awaitValidationMs })).data ?? {};
    // Still pending after the hold: a slow receiver, so the wait is worth a line.
    if (status() === 'pending_webhook_validation') review = await waitWhile(change, reviewID, 'pending_webhook_validation', 'pre-commit webhook validation', true);
    if (status() === 'approved_webhook_validation') review = (await input.client.request('PUT', `${path}/reviews/${encodeURIComponent(reviewID)}/commit`, {})).data ?? {};
    const validation = review['validation'] as { message?: string | null } | undefined;
    const said = validation?.message ? `: ${validation.message}` : '';
    if (status() === 'committed') return { ...base, status: 'committed', message: `committed through review ${reviewID}${said}` };
    if (status() === 'pending_webhook_validation') return { ...base, status: 'waiting', message: `review ${reviewID} still pending validation${said}` };
    return { ...base, status: 'failed', message: `review ${reviewID} ended ${status()}${said}` };
  };

  const direct = async (entry: EntitySchemaEntry, change: PlanChange, entity: RepoEntity | undefined): Promise<EntityOutcome> => {
    const base = { kind: change.kind, id: change.id, action: change.action };
    if (change.action === 'create') await input.client.createEntity(entry, bodyFor(entry, entity!, 'all'));
    else if (change.action === 'delete') await input.client.deleteEntity(entry, change.id);
    else await input.client.patchEntity(entry, change.id, bodyFor(entry, entity!, [...new Set(change.fields.map((f) => topLevelKey(f.path)))]));
    return { ...base, status: 'written', message: `written directly (${entry.folder} are not reviewed)` };
  };

  const run = async (change: PlanChange): Promise<void> => {
    if (interrupted()) return;
    const key = `${change.kind}/${change.id}`;
    const entity = files.get(key);
    const blockers = change.action === 'delete' ? dependentsOf(change, plan, failed) : referencesOf(entity?.data ?? {}).map((r) => `${r.folder}/${r.id}`).filter((r) => failed.has(r));
    if (blockers.length > 0) {
      record({ kind: change.kind, id: change.id, action: change.action, status: 'blocked', message: `blocked by ${[...new Set(blockers)].join(', ')}` });
      return;
    }
    const entry = entryOf(change.kind);
    try {
      if (change.action === 'drift') {
        const policy = change.drift?.policy ?? 'detect';
        if (policy === 'detect') return record({ kind: change.kind, id: change.id, action: 'drift', status: 'reported', message: 'edited in the console outside git (drift policy detect: left as is)' });
        if (policy === 'adopt') {
          if (!input.adopt) throw new InputError('Drift policy adopt needs a working tree to rewrite.');
          await input.adopt(change, await input.client.getEntity(entry, change.id));
          return record({ kind: change.kind, id: change.id, action: 'drift', status: 'adopted', message: `${change.file ?? key} rewritten from the console; review and commit it` });
        }
      }
      record(REVIEWED.has(change.kind) ? await viaReview(entry, change, entity) : await direct(entry, change, entity));
    } catch (error) {
      // An interrupted request is the run stopping, not this entity failing.
      if (interrupted()) return;
      if (!(error instanceof DomainError)) throw error;
      const fields = error instanceof InputError ? error.errors : [];
      const message = fields.length > 0 ? `${error.message} ${fields.map(formatFieldError).join('; ')}` : error.message;
      record({ kind: change.kind, id: change.id, action: change.action, status: 'failed', message, ...(fields.length > 0 ? { errors: fields } : {}) });
    }
  };

  // Creates and updates kind by kind in dependency order; deletes afterwards, in reverse order.
  const writes = plan.changes.filter((c) => c.action !== 'delete');
  const deletes = plan.changes.filter((c) => c.action === 'delete');
  for (const entry of ENTITY_SCHEMAS) await runAll(writes.filter((c) => c.kind === entry.folder), run, input.concurrency ?? 8);
  for (const entry of [...ENTITY_SCHEMAS].reverse()) await runAll(deletes.filter((c) => c.kind === entry.folder), run, input.concurrency ?? 8);
  if (interrupted()) {
    const canceled = await cancelOpened(input.canceler ?? input.client, opened);
    throw new ConflictError(`Interrupted: apply stopped before finishing${canceled.length > 0 ? `; canceled its open review${canceled.length === 1 ? '' : 's'} ${canceled.join(', ')}` : ''}. Nothing else was written; run apply again to continue.`);
  }

  // Against the files as they were applied: an edit saved meanwhile belongs to the next run (watch
  // replans on it), not to this run's verdict.
  let replan: Plan;
  try {
    ({ plan: replan } = await planAgainstConsole({ desired: input.desired, loaded: repo, client: input.client, prune: input.prune, desiredLabel: input.desiredLabel, targets: input.targets }));
  } catch (error) {
    if (interrupted()) throw new ConflictError('Interrupted during the re-plan, after every change was made: run flagops plan to check the result.');
    throw error;
  }
  const list = plan.changes.map((c) => outcomes.get(`${c.kind}/${c.id}`)!).filter(Boolean);
  const settled = list.every((o) => o.status === 'committed' || o.status === 'written' || o.status === 'adopted');
  // An adopted drift is settled in the working tree (the re-plan reads the files as they were applied);
  // a reported one is a change that remains.
  const onlyAdopted = replan.changes.every((c) => c.action === 'drift' && list.some((o) => o.kind === c.kind && o.id === c.id && o.status === 'adopted'));
  return { plan, planHash: hash, outcomes: list, replan, ok: settled && onlyAdopted };
}

interface OwnReview {
  changeHash: string;
  /** What the review does for the change: its action (create, update, ...), or archive / unarchive. */
  step: string;
  review: JsonObject;
}

/** One review a change takes: what its description names, and the submission body. */
interface ReviewStep {
  word: string;
  submit: JsonObject;
}

/**
 * Reviews an earlier apply of this user left open (interrupted, killed, or timed out waiting) for the
 * entities of this plan, by `kind/id`. One list request, and only when the plan has reviewed changes.
 */
async function ownOpenReviews(client: ConsoleClient, plan: Plan, identity: string | undefined): Promise<Map<string, OwnReview[]>> {
  const found = new Map<string, OwnReview[]>();
  if (!plan.changes.some((c) => REVIEWED.has(c.kind))) return found;
  const inPlan = new Set(plan.changes.map((c) => `${c.kind}/${c.id}`));
  const reviews = await client.listAll<JsonObject>(`/console/v1/reviews?status=${OPEN_STATUSES.join(',')}`);
  for (const review of reviews) {
    const match = OWN_REVIEW.exec(String(review['description'] ?? ''));
    if (!match || (identity !== undefined && String(review['submitter'] ?? '').toLowerCase() !== identity.toLowerCase())) continue;
    const key = `${match[2]}/${match[3]}`;
    if (!inPlan.has(key)) continue;
    found.set(key, [...(found.get(key) ?? []), { changeHash: match[4]!, step: match[1]!, review }]);
  }
  return found;
}

/** Cancels a review; one that reached a final state meanwhile (409) or is gone (404) needs nothing. */
async function cancelReview(client: ConsoleClient, path: string, reviewID: string): Promise<boolean> {
  try {
    await client.request('DELETE', `${path}/reviews/${encodeURIComponent(reviewID)}`);
    return true;
  } catch (error) {
    if (error instanceof ConflictError || error instanceof NotFoundError) return false;
    throw error;
  }
}

/** After an interruption: every review the run opened that is still open is canceled; their ids. */
async function cancelOpened(client: ConsoleClient, opened: ReadonlyMap<string, string>): Promise<string[]> {
  const canceled: string[] = [];
  for (const [reviewID, path] of opened) if (await cancelReview(client, path, reviewID)) canceled.push(reviewID);
  return canceled;
}

/** Who a review waits on: the gate's allowed reviewers when it names them, else anyone with approve_reviews. */
function reviewersNote(entity: RepoEntity | undefined): string {
  const settings = entity?.data['reviewSettings'] as { allowedReviewers?: { email?: string; name?: string }[] } | undefined;
  const names = (settings?.allowedReviewers ?? []).map((r) => r.email ?? r.name).filter(Boolean);
  return names.length > 0 ? `approval by ${names.join(' or ')}` : 'approval by a reviewer with approve_reviews (not the submitter)';
}

/**
 * Deletes run after the deletes of what refers to them (reverse dependency order): a dependent whose
 * delete failed still refers to this entity, so this delete is blocked. Its references are read from
 * the plan's old values.
 */
function dependentsOf(change: PlanChange, plan: Plan, failed: ReadonlySet<string>): string[] {
  const target = `${change.kind}/${change.id}`;
  return plan.changes
    .filter((c) => c.action === 'delete' && failed.has(`${c.kind}/${c.id}`))
    .filter((c) => referencesOf(Object.fromEntries(c.fields.map((f) => [f.path, f.old]))).some((r) => `${r.folder}/${r.id}` === target))
    .map((c) => `${c.kind}/${c.id}`);
}

async function runAll<T>(items: readonly T[], fn: (item: T) => Promise<void>, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
