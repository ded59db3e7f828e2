import { ChangeValidationSchema } from '../../../schemas/change-validation.js';
import { FINAL_REVIEW_STATUSES, REVIEWABLE_KINDS, ReviewSubmitSchema, type Review, type ReviewCommit } from '../../../schemas/review.js';
import { changeTypesOf, type ChangeAction } from '../../core/change-type.js';
import { parseWith } from '../../core/zod-errors.js';
import { ConflictError, InputError, NotAllowedError, NotFoundError } from '../../errors.js';
import { UNDECIDED_REVIEW, type JsonObject, type Page, type ReviewRecord, type Store, type StoreRepos } from '../../store/ports.js';
import type { EntityOp, EntityService, PreparedChange } from '../entity-service.js';
import { sameEmail } from '../../core/same-email.js';
import { assertChangeWithinKeyScope } from '../key-scope.js';
import type { Actor } from '../permissions.js';
import { randomHex } from '../random-token.js';
import type { ReviewChanges } from './review-changes.js';
import { asSubmissionError, reviewOp } from './review-op.js';
import { reviewView } from './review-view.js';
import { routedSubmission, writeOpOf, type RoutedSubmission } from './routed-write.js';
import type { SettingsService } from './settings-service.js';
import { labelInSentence } from '../kinds/kind-def.js';

export type ValidationOutcome = Pick<Review, 'reviewID' | 'status' | 'type' | 'configType' | 'configName' | 'validation'>;

/** How a held request waits: whether its client has gone, and how often to re-read without a wake-up. */
export interface HoldOptions {
  gone: () => boolean;
  recheckMs: number;
}

/** Where a review is addressed: by id alone (/reviews/{id}) or under its entity (/gates/{id}/reviews/{id}). */
export interface ReviewRef {
  reviewId: string;
  kind?: string;
  entityId?: string;
}

/** The part of the webhook dispatcher the review service drives. */
export interface ValidationQueue {
  /** A commit started a validation (the review as just written): deliver the webhook and watch the deadline. */
  enqueue(review: ReviewRecord): void;
  /**
   * The validation ended (decision, cancel): stop retries and timers. A delivery in flight is cut off,
   * unless `letDeliveryFinish` (a decision: the receiver is answering it).
   */
  settle(reviewId: string, letDeliveryFinish?: boolean): void;
  /**
   * The delivery a call from the receiver answers, when not written yet (the dispatcher defers that
   * write, hoping to fold it into the decision's transaction), or, for a `decision`, still in flight
   * (the receiver decided before answering: the decision proves the delivery); its time, now the
   * caller's to write. Undefined when none.
   */
  takeDelivery(reviewId: string, decision: boolean): number | undefined;
}

/** A transaction's repositories, and the reviews it wrote (their waiters wake once it commits). */
interface ReviewTx extends StoreRepos {
  written: Set<string>;
}

export interface ReviewServiceDeps {
  store: Store;
  clock: () => number;
  /** Entity services by kind; reviews exist for the reviewable kinds among them. */
  entities: ReadonlyMap<string, EntityService>;
  settings: SettingsService;
  /** How long the receiver has to decide (spec: 2 minutes). */
  webhookTimeoutMs: number;
  queue: ValidationQueue;
  /** Wakes review long polls after a review record is written. */
  changes?: ReviewChanges;
}

const FINAL: readonly string[] = FINAL_REVIEW_STATUSES;
/** Statuses whose commit would apply or start a validation, so an entity change makes them stale. */
const COMMITTABLE: readonly string[] = ['approved', 'approved_webhook_validation', 'validation_timed_out'];

function newReviewId(): string {
  return `rev_${randomHex(8)}`;
}

function submitterActor(email: string): Actor {
  return { userEmail: email, keyId: null, role: '', permissions: new Set() };
}

/**
 * The review workflow (docs/design.md, "The reviews protocol"): submit → approve → commit, with the pre-commit webhook between
 * approval and commit when it is configured and the change type triggers it. Changes are validated
 * by EntityService.prepare at submission and written by EntityService.write at commit, inside one
 * store transaction together with the review's new status: there is no second write path.
 */
export class ReviewService {
  /** Set when the console closes: held requests answer with the review as it is, at once. */
  private released = false;

  constructor(private readonly deps: ReviewServiceDeps) {}

  /**
   * The console is closing: every held request (long poll, held commit) answers now with the review as
   * it stands, so shutdown finishes its in-flight requests instead of waiting out their holds; a held
   * commit commits nothing more.
   */
  releaseHolds(): void {
    this.released = true;
    this.deps.changes?.wakeAll();
  }

  /** Kinds that have review routes: the reviewable kinds this console serves. */
  reviewableKinds(): EntityService[] {
    return REVIEWABLE_KINDS.map((k) => this.deps.entities.get(k)).filter((s): s is EntityService => s !== undefined);
  }

  private service(kind: string): EntityService {
    const service = this.deps.entities.get(kind);
    if (!service || !REVIEWABLE_KINDS.includes(kind)) throw new NotFoundError(`Reviews are not available for ${kind}.`);
    return service;
  }

  // ---- transactions ------------------------------------------------------------------------------

  /**
   * Runs fn in a store transaction; once it has committed, wakes the waiters of every review it wrote,
   * here and (through the store) in the other processes on the database.
   */
  private async inTransaction<T>(fn: (tx: ReviewTx) => Promise<T>): Promise<T> {
    const written = new Set<string>();
    const result = await this.deps.store.transaction((repos) => fn({ ...repos, written }));
    this.announce(written);
    return result;
  }

  private announce(written: Iterable<string>): void {
    const { store, changes } = this.deps;
    for (const id of written) {
      changes?.changed(id);
      store.publish?.({ topic: 'review', id }).catch(() => undefined);
    }
  }

  // ---- submission ------------------------------------------------------------------------------

  async submit(kind: string, entityId: string, body: unknown, actor: Actor): Promise<Review> {
    const service = this.service(kind);
    const parsed = parseWith(ReviewSubmitSchema, body ?? {});
    if (!parsed.ok) throw new InputError('Invalid review.', parsed.errors);
    const record = await this.inTransaction(async (tx) => {
      const action: ChangeAction = parsed.value.action ?? 'update';
      const op = await reviewOp(service, tx.entities, entityId, action, parsed.value);
      let prepared: PreparedChange;
      try {
        prepared = await service.prepare(op, actor, tx);
      } catch (error) {
        throw op.type === 'delete' ? error : asSubmissionError(error, parsed.value.group === undefined ? 'change' : 'group');
      }
      if (!prepared.changed) throw new InputError('The change changes nothing.', [{ property: 'change', errorMessage: 'leaves the entity as it is' }]);
      const change = op.type === 'delete' ? null : ((op.body as JsonObject | undefined) ?? null);
      const review = await this.newRecord(tx, service, prepared, actor, { action, change, description: parsed.value.description ?? '' });
      await tx.reviews.insert(review);
      tx.written.add(review.id);
      return review;
    });
    return this.view(record);
  }

  /** A new pending review of a prepared change, its configs and change types as a commit would write them. */
  private async newRecord(tx: ReviewTx, service: EntityService, prepared: PreparedChange, actor: Actor, submission: RoutedSubmission & { description: string }): Promise<ReviewRecord> {
    const { kind } = service.def;
    const { action } = submission;
    const preview = (await service.write(prepared, actor, tx, { dryRun: true })).entity;
    const now = this.deps.clock();
    return {
      id: newReviewId(),
      kind,
      entityId: prepared.id,
      status: 'pending',
      action,
      description: submission.description,
      change: submission.change,
      submitter: actor.userEmail,
      createdTime: now,
      lastModifiedTime: now,
      baseVersion: prepared.before?.version ?? null,
      after: prepared.after ?? null,
      oldConfig: prepared.before ? await service.respond(prepared.before.data, tx) : null,
      newConfig: preview ?? null,
      changeTypes: changeTypesOf({ configType: kind, action, before: prepared.before?.data, after: prepared.after }),
      ...UNDECIDED_REVIEW,
      ...(submission.write === undefined ? {} : { write: submission.write }),
    };
  }

  /**
   * An entity write sent with `x-respect-review-settings: true`: where reviews are required (the
   * project's is_config_review_required, or the entity's reviewSettings.requiredReview), it is
   * validated as the direct write would be and submitted as a review, whatever bypass_reviews the
   * key holds. Undefined where reviews are not required (the caller writes directly); `unchanged`
   * (the entity as it is) for a write that would change nothing, which needs no review.
   */
  async submitWrite(service: EntityService, op: EntityOp, actor: Actor, options: { expectedVersion?: number; description: string }): Promise<{ review: Review } | { unchanged: JsonObject } | undefined> {
    const { kind, label } = service.def;
    if (!REVIEWABLE_KINDS.includes(kind) || this.deps.entities.get(kind) !== service) return undefined;
    const outcome = await this.inTransaction(async (tx): Promise<ReviewRecord | { unchanged: JsonObject } | undefined> => {
      const current = op.type === 'create' ? undefined : await tx.entities.get(kind, op.id);
      const own = (current?.data['reviewSettings'] as { requiredReview?: unknown } | undefined)?.requiredReview === true;
      if (!own && !(await this.deps.settings.reviews(tx)).is_config_review_required) return undefined;
      if (!actor.permissions.has('submit_reviews')) {
        throw new NotAllowedError(`Reviews are required for this ${labelInSentence(label)}: submitting the change as a review needs the submit_reviews permission.`);
      }
      const prepared = await service.prepare(op, actor, tx);
      const before = prepared.before;
      if (options.expectedVersion !== undefined && before !== undefined && before.version !== options.expectedVersion) {
        throw new ConflictError(`Version mismatch: ${label} ${prepared.id} is at version ${before.version}, not ${options.expectedVersion}.`);
      }
      if (!prepared.changed && before !== undefined) return { unchanged: await service.respond(before.data, tx) };
      const review = await this.newRecord(tx, service, prepared, actor, { ...routedSubmission(service.def, op, prepared), description: options.description });
      await tx.reviews.insert(review);
      tx.written.add(review.id);
      return review;
    });
    if (outcome === undefined || 'unchanged' in outcome) return outcome;
    return { review: await this.view(outcome) };
  }

  // ---- reads -----------------------------------------------------------------------------------

  private async load(ref: ReviewRef, repos: StoreRepos = this.deps.store): Promise<ReviewRecord> {
    const review = await repos.reviews.get(ref.reviewId);
    if (!review || (ref.kind !== undefined && review.kind !== ref.kind) || (ref.entityId !== undefined && review.entityId !== ref.entityId)) {
      throw new NotFoundError('Review not found.');
    }
    return review;
  }

  async get(ref: ReviewRef): Promise<Review> {
    return this.view(await this.load(ref));
  }

  /**
   * Resolves when the review is written next (by this process, or by another that announces it through
   * the store), or after `ms`; the caller re-reads. Without a notifier it is a plain timer.
   */
  nextChange(reviewId: string, ms: number): Promise<void> {
    if (this.deps.changes) return this.deps.changes.next(reviewId, ms);
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /**
   * Holds while the review has `status`, at most `ms` and only while the client is there (`gone`):
   * woken by writes, re-read every `recheckMs` for what no write announces (a review turning stale).
   * The review as it is then.
   */
  async awaitChange(ref: ReviewRef, status: string, ms: number, hold: HoldOptions): Promise<Review> {
    return this.view(await this.holdWhile(ref, await this.load(ref), status, Date.now() + ms, hold));
  }

  private async holdWhile(ref: ReviewRef, review: ReviewRecord, status: string, deadline: number, hold: HoldOptions): Promise<ReviewRecord> {
    let current = review;
    while (current.status === status && Date.now() < deadline && !hold.gone() && !this.released) {
      await this.nextChange(current.id, Math.min(hold.recheckMs, Math.max(0, deadline - Date.now())));
      current = await this.load(ref);
    }
    return current;
  }

  async list(query: { kind?: string; entityId?: string; statuses?: string[]; offset: number; limit: number }): Promise<Page<Review>> {
    const page = await this.deps.store.reviews.list(query);
    return { total: page.total, items: await Promise.all(page.items.map((r) => this.view(r))) };
  }

  private async isStale(review: ReviewRecord): Promise<boolean> {
    if (review.status === 'stale') return true;
    if (FINAL.includes(review.status)) return false;
    const current = await this.deps.store.entities.version(review.kind, review.entityId);
    return review.baseVersion === null ? current !== undefined : current !== review.baseVersion;
  }

  /** What the receiver gets back from change_validation: the review's state, not its configs. */
  private async outcome(review: ReviewRecord): Promise<ValidationOutcome> {
    const { reviewID, status, type, configType, configName, validation } = await this.view(review, false);
    return { reviewID, status, type, configType, configName, validation };
  }

  /** The review as the API shows it (read outside any transaction): what users see of a pending validation included. */
  async view(review: ReviewRecord, withStaleness = true): Promise<Review> {
    // The company-level message only shows with a validation: skip the settings read otherwise.
    const initialMessage = review.validation ? (await this.deps.settings.webhookTarget()).initialMessage : '';
    return reviewView(review, { initialMessage, isStale: withStaleness && (await this.isStale(review)) });
  }

  // ---- reviewer decisions ----------------------------------------------------------------------

  private async save(tx: ReviewTx, review: ReviewRecord, changes: Partial<ReviewRecord>): Promise<ReviewRecord> {
    const updated = { ...review, ...changes, lastModifiedTime: this.deps.clock() };
    await tx.reviews.update(updated);
    tx.written.add(updated.id);
    return updated;
  }

  private wrongState(review: ReviewRecord, doing: string): ConflictError {
    return new ConflictError(`Review ${review.id} is ${review.status.replaceAll('_', ' ')}; it cannot be ${doing}.`);
  }

  /** Reviewer rules: approve_reviews (checked by the route), no self-approval, the entity's allowed reviewers. */
  private async assertReviewer(tx: StoreRepos, review: ReviewRecord, actor: Actor, deciding: 'approve' | 'reject'): Promise<void> {
    if (deciding === 'approve' && sameEmail(review.submitter, actor.userEmail) && !actor.permissions.has('self_approve_review')) {
      throw new NotAllowedError('You submitted this review: approving it needs the self_approve_review permission.');
    }
    const entity = (await tx.entities.get(review.kind, review.entityId))?.data ?? review.after ?? {};
    const settings = entity['reviewSettings'] as { allowedReviewers?: { email?: string }[] } | undefined;
    const allowed = (settings?.allowedReviewers ?? []).map((r) => r.email).filter((e): e is string => e !== undefined && e !== '');
    if (allowed.length > 0 && !allowed.some((email) => sameEmail(email, actor.userEmail))) {
      throw new NotAllowedError(`Only the allowed reviewers of ${review.kind.replace('_', ' ')} ${review.entityId} may ${deciding} its reviews.`);
    }
  }

  async approve(ref: ReviewRef, actor: Actor, comment?: string): Promise<Review> {
    const record = await this.inTransaction(async (tx) => {
      const review = await this.load(ref, tx);
      if (review.status !== 'pending') throw this.wrongState(review, 'approved');
      await this.assertReviewer(tx, review, actor, 'approve');
      return this.save(tx, review, { status: 'approved', approvedBy: actor.userEmail, approvedTime: this.deps.clock(), comment: comment ?? null });
    });
    return this.view(record);
  }

  async reject(ref: ReviewRef, actor: Actor, comment?: string): Promise<Review> {
    const record = await this.inTransaction(async (tx) => {
      const review = await this.load(ref, tx);
      if (review.status !== 'pending' && review.status !== 'approved') throw this.wrongState(review, 'rejected');
      await this.assertReviewer(tx, review, actor, 'reject');
      return this.save(tx, review, { status: 'rejected', rejectedBy: actor.userEmail, rejectedTime: this.deps.clock(), comment: comment ?? null });
    });
    return this.view(record);
  }

  /** The submitter (or an admin: manage_settings) withdraws a review that is not final yet. */
  async cancel(ref: ReviewRef, actor: Actor): Promise<Review> {
    const result = await this.inTransaction(async (tx) => {
      const review = await this.load(ref, tx);
      if (!sameEmail(review.submitter, actor.userEmail) && !actor.permissions.has('manage_settings')) {
        throw new NotAllowedError('Only the submitter (or an admin) may cancel a review.');
      }
      if (FINAL.includes(review.status)) throw this.wrongState(review, 'canceled');
      return this.save(tx, review, { status: 'canceled', canceledBy: actor.userEmail, canceledTime: this.deps.clock() });
    });
    this.deps.queue.settle(result.id);
    return this.view(result);
  }

  // ---- commit ----------------------------------------------------------------------------------

  /**
   * Commits an approved review: applies it at once, or starts the pre-commit validation when a
   * webhook is configured, the change type triggers it and the committer does not bypass it.
   * Refused with 409 (nothing applied) when the entity moved on since the review was made; the
   * review then becomes `stale` for good.
   */
  async commit(ref: ReviewRef, actor: Actor, options: ReviewCommit = {}): Promise<{ review: Review; started: boolean }> {
    const bypass = options.bypassValidation === true;
    if (bypass && !actor.permissions.has('bypass_precommit_webhook')) {
      throw new NotAllowedError("Committing without validation needs the 'bypass_precommit_webhook' permission.");
    }
    // One transaction: the checks and the write see the same state.
    const outcome = await this.inTransaction(async (tx): Promise<{ stale: string } | { started: ReviewRecord } | { committed: ReviewRecord }> => {
      const review = await this.load(ref, tx);
      if (review.status === 'pending_webhook_validation') throw new ConflictError(`Review ${review.id} is pending validation; wait for the decision.`);
      if (review.status === 'failed_webhook_validation') throw new ConflictError(`Review ${review.id} failed validation; the change is blocked.`);
      if (!COMMITTABLE.includes(review.status)) throw this.wrongState(review, 'committed');
      const stale = await this.staleness(tx, review);
      if (stale !== undefined) {
        await this.save(tx, review, { status: 'stale' });
        return { stale };
      }
      const type = review.changeTypes[0];
      const url = type === undefined || bypass || review.status === 'approved_webhook_validation' ? '' : (await this.deps.settings.webhookTarget(tx)).url;
      if (type !== undefined && url !== '') {
        // The write after validation checks the committer's key limits; so does its start, which is
        // already a change (the review's state, a webhook delivery).
        const current = await tx.entities.get(review.kind, review.entityId);
        assertChangeWithinKeyScope({ label: this.service(review.kind).def.label, id: review.entityId, before: current?.data, after: review.after ?? undefined }, actor);
        return { started: await this.startValidation(tx, review, actor, type) };
      }
      return { committed: await this.apply(tx, review, actor, bypass) };
    });
    if ('stale' in outcome) throw new ConflictError(outcome.stale);
    if ('started' in outcome) {
      this.deps.queue.enqueue(outcome.started);
      // Not stale: the transaction just checked.
      return { review: await this.view(outcome.started, false), started: true };
    }
    return { review: await this.view(outcome.committed), started: false };
  }

  /**
   * A commit that, when it starts the pre-commit validation, holds until the webhook decides (at
   * most `awaitValidationMs`) and then commits an approved change as the same committer's second
   * commit call would: one request instead of commit, wait, commit. The committer asked for the
   * commit, so the approval only completes it while their request is still there.
   */
  async commitAwaiting(ref: ReviewRef, actor: Actor, options: ReviewCommit, hold: HoldOptions): Promise<{ review: Review; started: boolean }> {
    const first = await this.commit(ref, actor, options);
    if (!first.started || !options.awaitValidationMs) return first;
    const record = await this.holdWhile(ref, await this.load(ref), 'pending_webhook_validation', Date.now() + options.awaitValidationMs, hold);
    if (record.status === 'approved_webhook_validation' && !hold.gone() && !this.released) return { review: (await this.commit(ref, actor, {})).review, started: true };
    return { review: await this.view(record), started: true };
  }

  /** Why a commit of the review would be refused as stale, or undefined. */
  private async staleness(tx: StoreRepos, review: ReviewRecord): Promise<string | undefined> {
    const current = await tx.entities.version(review.kind, review.entityId);
    const label = `${review.kind.replace('_', ' ')} ${review.entityId}`;
    if (review.baseVersion === null) return current !== undefined ? `Stale review: ${label} was created after the review was made.` : undefined;
    if (current === undefined) return `Stale review: ${label} was deleted after the review was made.`;
    if (current !== review.baseVersion) {
      return `Stale review: ${label} is at version ${current}, the review was made against version ${review.baseVersion}; nothing was applied.`;
    }
    return undefined;
  }

  private startValidation(tx: ReviewTx, review: ReviewRecord, actor: Actor, type: string): Promise<ReviewRecord> {
    const now = this.deps.clock();
    return this.save(tx, review, {
      status: 'pending_webhook_validation',
      validation: {
        committer: actor.userEmail,
        startedTime: now,
        deadline: now + this.deps.webhookTimeoutMs,
        type,
        attempts: 0,
        deliveredTime: null,
        lastError: null,
        validated: null,
        decidedTime: null,
        message: null,
        debugLinks: [],
      },
    });
  }

  /** Writes the reviewed change with the entity service, in the caller's transaction. */
  private async apply(tx: ReviewTx, review: ReviewRecord, actor: Actor, bypass: boolean): Promise<ReviewRecord> {
    const service = this.service(review.kind);
    const op = review.write ? writeOpOf(review.entityId, review.write) : await reviewOp(service, tx.entities, review.entityId, review.action as ChangeAction, { change: review.change ?? undefined });
    let prepared: PreparedChange;
    try {
      // Re-checked against the current state of every other entity (references, delete blockers).
      prepared = await service.prepare(op, submitterActor(review.submitter), tx);
    } catch (error) {
      if (error instanceof InputError) {
        const details = error.errors.map((e) => `${e.property}: ${e.errorMessage}`).join('; ');
        throw new ConflictError(`The reviewed change is no longer valid: ${details || error.message}`);
      }
      throw error;
    }
    // Data changes write exactly what was reviewed (generated rule ids included); lifecycle actions
    // run now, so their times are the commit's.
    if (op.type === 'create' || op.type === 'patch' || review.write !== undefined) prepared = { ...prepared, after: review.after ?? undefined };
    const auditDetails: JsonObject = { review: review.id, submitter: review.submitter };
    if (bypass) auditDetails['bypassedValidation'] = true;
    if (review.status === 'approved_webhook_validation') auditDetails['validatedByWebhook'] = true;
    const result = await service.write(prepared, actor, tx, { expectedVersion: review.baseVersion ?? undefined, reviewId: review.id, auditDetails });
    const version = result.entity?.['version'];
    return this.save(tx, review, {
      status: 'committed',
      committer: actor.userEmail,
      committedTime: this.deps.clock(),
      committedVersion: typeof version === 'number' ? version : null,
      bypassedValidation: bypass,
    });
  }

  // ---- change validation (POST /change_validation) ------------------------------------------------

  /**
   * A decision or a progress message from the customer's system. Repeating the decision a review
   * already has is harmless (no change); anything else on a review that is not pending validation
   * is a 409. Nobody who took part in the change (submitted, approved or committed it) may decide
   * its validation, whatever their role: the validation is the check they don't control.
   */
  async validate(body: unknown, actor: Actor): Promise<{ review: ValidationOutcome; changed: boolean }> {
    const parsed = parseWith(ChangeValidationSchema, body ?? {});
    if (!parsed.ok) throw new InputError('Invalid change validation.', parsed.errors);
    const { reviewID, validated, message, debugLinks } = parsed.value;
    if (validated === undefined && message === undefined) {
      throw new InputError('Invalid change validation.', [{ property: 'validated', errorMessage: 'is required unless a message is given' }]);
    }
    const result = await this.inTransaction(async (tx) => {
      const review = await this.load({ reviewId: reviewID }, tx);
      const validation = review.validation;
      if (validated !== undefined) this.assertNotParticipant(review, actor);
      if (validated !== undefined && validation?.validated === validated && review.status !== 'pending_webhook_validation') {
        return { record: review, changed: false };
      }
      if (review.status !== 'pending_webhook_validation' || !validation) {
        throw new ConflictError(`Review ${review.id} is not pending validation (it is ${review.status.replaceAll('_', ' ')}).`);
      }
      // The delivery this decision answers, when its stamp is still unwritten: written now, with it.
      const delivered = this.deps.queue.takeDelivery(review.id, validated !== undefined);
      const stamp = delivered === undefined ? {} : { attempts: validation.attempts + 1, deliveredTime: delivered, lastError: null };
      const next = { ...validation, ...stamp, message: message ?? validation.message, debugLinks: debugLinks ?? validation.debugLinks };
      if (validated === undefined) return { record: await this.save(tx, review, { validation: next }), changed: true };
      const status = validated ? 'approved_webhook_validation' : 'failed_webhook_validation';
      return { record: await this.save(tx, review, { status, validation: { ...next, validated, decidedTime: this.deps.clock() } }), changed: true };
    });
    if (validated !== undefined && result.changed) this.deps.queue.settle(result.record.id, true);
    return { review: await this.outcome(result.record), changed: result.changed };
  }

  private assertNotParticipant(review: ReviewRecord, actor: Actor): void {
    const roles: [string | null | undefined, string][] = [
      [review.submitter, 'submitted'],
      [review.approvedBy, 'approved'],
      [review.validation?.committer ?? review.committer, 'committed'],
    ];
    const part = roles.find(([email]) => sameEmail(email, actor.userEmail));
    if (part) {
      throw new NotAllowedError(
        `${actor.userEmail} ${part[1]} this review; a user who submitted, approved or committed a change cannot decide its validation.`,
      );
    }
  }
}
