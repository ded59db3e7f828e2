import { PENDING_VALIDATION_TITLE, type Review, type ReviewAction, type ReviewStatus } from '../../../schemas/review.js';
import type { ReviewRecord } from '../../store/ports.js';
import type { Actor } from '../permissions.js';

/** What a key without manage_settings reads of a failed delivery instead of its reason. */
export const DELIVERY_FAILED = 'the delivery failed (keys with manage_settings see why)';

/**
 * A review as `actor` may see it: why a webhook delivery failed (refused, reset, timed out, an HTTP
 * status) tells whoever reads it what listens where the webhook points, so only those who may set
 * the webhook (manage_settings, admins) read the reason; others read that it failed.
 */
export function reviewForViewer<T extends { validation: { lastError: string | null } | null }>(review: T, actor: Actor): T {
  const { validation } = review;
  if (!validation || validation.lastError === null || actor.permissions.has('manage_settings')) return review;
  return { ...review, validation: { ...validation, lastError: DELIVERY_FAILED } };
}

/**
 * A stored review as the API shows it. While it is pending validation, `validation.title` is the
 * reference API's "Changes to this config have been reviewed and are pending validation", shown with the
 * company-level initial message and the latest review-specific message.
 */
export function reviewView(review: ReviewRecord, context: { initialMessage: string; isStale: boolean }): Review {
  const { validation } = review;
  return {
    reviewID: review.id,
    status: review.status as ReviewStatus,
    type: review.changeTypes[0] ?? null,
    changeTypes: review.changeTypes,
    configType: review.kind,
    configName: review.entityId,
    action: review.action as 'update' | ReviewAction,
    description: review.description,
    change: review.change,
    submitter: review.submitter,
    createdTime: review.createdTime,
    lastModifiedTime: review.lastModifiedTime,
    baseVersion: review.baseVersion,
    isStale: context.isStale,
    oldConfig: review.oldConfig,
    newConfig: review.newConfig,
    approvedBy: review.approvedBy,
    approvedTime: review.approvedTime,
    rejectedBy: review.rejectedBy,
    rejectedTime: review.rejectedTime,
    comment: review.comment,
    canceledBy: review.canceledBy,
    canceledTime: review.canceledTime,
    committer: review.committer,
    committedTime: review.committedTime,
    committedVersion: review.committedVersion,
    bypassedValidation: review.bypassedValidation,
    validation: validation && {
      title: review.status === 'pending_webhook_validation' ? PENDING_VALIDATION_TITLE : null,
      initialMessage: context.initialMessage === '' ? null : context.initialMessage,
      message: validation.message,
      debugLinks: validation.debugLinks,
      committer: validation.committer,
      startedTime: validation.startedTime,
      deadline: validation.deadline,
      attempts: validation.attempts,
      deliveredTime: validation.deliveredTime,
      lastError: validation.lastError,
      validated: validation.validated,
      decidedTime: validation.decidedTime,
    },
  };
}
