import { z } from 'zod';
import { DebugLinkSchema } from './change-validation.js';
import { DescriptionSchema, JsonObjectSchema } from './common.js';
import { ENTITY_SCHEMAS } from './index.js';

/** What a review proposes besides a partial update (`change` alone). */
export const REVIEW_ACTIONS = ['create', 'delete', 'start', 'ship', 'abandon', 'reset', 'archive', 'unarchive'] as const;
export type ReviewAction = (typeof REVIEW_ACTIONS)[number];

/** Kinds that are changed through reviews and may trigger the pre-commit webhook. */
export const REVIEWABLE_KINDS: readonly string[] = ENTITY_SCHEMAS.filter((e) => e.reviewable).map((e) => e.kind);

/**
 * Review states. The first three and the webhook states are the reference API's; `canceled` (by the
 * submitter) and `stale` (the entity changed after review, so the approval no longer binds) are ours.
 */
export const REVIEW_STATUSES = [
  'pending',
  'approved',
  'rejected',
  'canceled',
  'pending_webhook_validation',
  'approved_webhook_validation',
  'failed_webhook_validation',
  'validation_timed_out',
  'committed',
  'stale',
] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Statuses from which nothing moves any more; a review in any other is open. */
export const FINAL_REVIEW_STATUSES: readonly ReviewStatus[] = ['rejected', 'canceled', 'committed', 'stale'];
export const OPEN_REVIEW_STATUSES: readonly ReviewStatus[] = REVIEW_STATUSES.filter((s) => !FINAL_REVIEW_STATUSES.includes(s));

/** Title users see while a change waits for the customer's system (docs/design.md, "The reviews protocol"). */
export const PENDING_VALIDATION_TITLE = 'Changes to this config have been reviewed and are pending validation';

export const ReviewSubmitSchema = z
  .strictObject({
    description: DescriptionSchema.optional().describe('Why the change is made; shown to reviewers.'),
    change: JsonObjectSchema.optional().describe(
      'Without action: a partial update body (the fields of PATCH /{kind}/{id}). With action "create": the create body; the path id is the new id. With "ship": optionally the make_decision body.',
    ),
    action: z.enum(REVIEW_ACTIONS).optional().describe('create, delete, archive, unarchive, or an experiment lifecycle action (start, ship, abandon, reset); leave out for an update.'),
    group: z.string().min(1, 'must not be empty').optional().describe('For action "ship": id or name of the group to ship.'),
  })
  .meta({ id: 'ReviewSubmit', description: 'Body of POST /{gates|dynamic_configs|segments|experiments}/{id}/reviews.' });

export type ReviewSubmit = z.infer<typeof ReviewSubmitSchema>;

/** Longest a request may be held waiting on a review (`waitMs` of a review read, `awaitValidationMs` of a commit). */
export const REVIEW_MAX_WAIT_MS = 25_000;

export const ReviewCommitSchema = z
  .strictObject({
    bypassValidation: z.boolean().optional().describe('Commit at once without the pre-commit webhook; needs bypass_precommit_webhook and is recorded in the audit log.'),
    awaitValidationMs: z
      .number()
      .int('must be an integer')
      .min(0, `must be an integer from 0 to ${REVIEW_MAX_WAIT_MS}`)
      .max(REVIEW_MAX_WAIT_MS, `must be an integer from 0 to ${REVIEW_MAX_WAIT_MS}`)
      .optional()
      .describe(
        'When this commit starts the pre-commit validation: hold the answer while the validation is pending, at most this many ms, and commit as soon as the webhook approves, as a second commit call would. The answer is then the committed review, or the review as it stands (still pending, blocked or timed out). Nothing is committed for a client that has gone.',
      ),
  })
  .meta({ id: 'ReviewCommit', description: 'Optional body of PUT .../reviews/{reviewID}/commit.' });

export type ReviewCommit = z.infer<typeof ReviewCommitSchema>;

export const ReviewDecisionSchema = z
  .strictObject({ comment: z.string().max(1000, 'must be at most 1000 characters long').optional().describe('Shown with the decision.') })
  .meta({ id: 'ReviewDecision', description: 'Optional body of PUT .../reviews/{reviewID}/approve and /reject.' });

export const ReviewValidationSchema = z
  .strictObject({
    title: z.string().nullable().describe('"Changes to this config have been reviewed and are pending validation" while pending validation.'),
    initialMessage: z.string().nullable().describe('The company-level message of the pre-commit webhook settings.'),
    message: z.string().nullable().describe('The latest review-specific message from the change-validation endpoint.'),
    debugLinks: z.array(DebugLinkSchema).describe('Links sent by the receiver.'),
    committer: z.string().describe('E-mail of the user whose commit started the validation.'),
    startedTime: z.number().describe('Epoch milliseconds when the commit started the validation.'),
    deadline: z.number().describe('Epoch milliseconds after which the validation times out.'),
    attempts: z.number().int().describe('Webhook delivery attempts so far.'),
    deliveredTime: z.number().nullable().describe('When the receiver accepted the webhook (2xx), or null.'),
    lastError: z.string().nullable().describe('Why the last delivery attempt failed, or null.'),
    validated: z.boolean().nullable().describe('The decision: true approved, false rejected, null none yet.'),
    decidedTime: z.number().nullable().describe('When the decision arrived.'),
  })
  .meta({ id: 'ReviewValidation', description: 'Pre-commit validation of a review.' });

export const ReviewSchema = z
  .strictObject({
    reviewID: z.string().describe('Review id; the review_id of the webhook payload.'),
    status: z.enum(REVIEW_STATUSES).describe(REVIEW_STATUSES.join(', ')),
    type: z.string().nullable().describe('Change type sent as the webhook `type` (rules, update_target_apps, ...), or null when the change does not trigger the webhook.'),
    changeTypes: z.array(z.string()).describe('Every change type the change falls under, the one sent first.'),
    configType: z.string().describe('gate, dynamic_config, segment or experiment.'),
    configName: z.string().describe('Id of the entity.'),
    action: z.enum(['update', ...REVIEW_ACTIONS]).describe('update, create, delete, start, ship, abandon, reset, archive or unarchive.'),
    description: z.string(),
    change: JsonObjectSchema.nullable().describe('The submitted change body.'),
    submitter: z.string().describe('E-mail of the user who submitted the review.'),
    createdTime: z.number(),
    lastModifiedTime: z.number(),
    baseVersion: z.number().int().nullable().describe('Entity version the review was made against; null for a create.'),
    isStale: z.boolean().describe('True when the entity changed since the review was made: a commit would be refused.'),
    oldConfig: JsonObjectSchema.nullable().describe('The entity before the change, as the read endpoint returns it; null for a create.'),
    newConfig: JsonObjectSchema.nullable().describe('The entity as the change would leave it; null for a delete.'),
    approvedBy: z.string().nullable(),
    approvedTime: z.number().nullable(),
    rejectedBy: z.string().nullable(),
    rejectedTime: z.number().nullable(),
    comment: z.string().nullable().describe('Comment of the latest approval or rejection.'),
    canceledBy: z.string().nullable(),
    canceledTime: z.number().nullable(),
    committer: z.string().nullable(),
    committedTime: z.number().nullable(),
    committedVersion: z.number().int().nullable().describe('Entity version the commit produced.'),
    bypassedValidation: z.boolean().describe('True when committed with bypassValidation.'),
    validation: ReviewValidationSchema.nullable().describe('Pre-commit validation, once a commit started one.'),
  })
  .meta({ id: 'Review', description: 'A change review.' });

export type Review = z.infer<typeof ReviewSchema>;

export const ValidationOutcomeSchema = ReviewSchema.pick({ reviewID: true, status: true, type: true, configType: true, configName: true, validation: true }).meta({
  id: 'ValidationOutcome',
  description: 'What change_validation answers with: the review\'s status and validation, without its configs.',
});
