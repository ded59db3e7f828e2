import type { FastifyInstance } from 'fastify';
import { ChangeValidationMessageSchema, ChangeValidationSchema } from '../../../schemas/change-validation.js';
import { ValidationOutcomeSchema } from '../../../schemas/review.js';
import { parseWith } from '../../core/zod-errors.js';
import { InputError } from '../../errors.js';
import { defineRoute } from '../http/define-route.js';
import type { RouteCatalog } from '../http/route-catalog.js';
import type { ReviewService } from '../reviews/review-service.js';
import { reviewForViewer } from '../reviews/review-view.js';

/** Spec endpoint 10: the customer's system decides a pending validation or reports progress. */
export function registerChangeValidationRoutes(app: FastifyInstance, catalog: RouteCatalog, reviews: ReviewService): void {
  const tag = 'Change validation';
  defineRoute(
    app,
    catalog,
    { method: 'POST', url: '/console/v1/change_validation', summary: 'Approve or reject a change pending validation, or only replace its message', tag, permission: 'validate_changes', body: ChangeValidationSchema, response: ValidationOutcomeSchema },
    async (request, actor) => {
      const { review, changed } = await reviews.validate(request.body, actor);
      const message = !changed ? 'Validation status unchanged (already decided).' : review.validation?.validated === null ? 'Validation message updated successfully' : 'Validation status updated successfully';
      return { message, data: reviewForViewer(review, actor) };
    },
  );
  defineRoute(
    app,
    catalog,
    { method: 'PATCH', url: '/console/v1/change_validation/message', summary: 'Replace the review-specific message of a change pending validation', tag, permission: 'validate_changes', body: ChangeValidationMessageSchema, response: ValidationOutcomeSchema },
    async (request, actor) => {
      const parsed = parseWith(ChangeValidationMessageSchema, request.body ?? {});
      if (!parsed.ok) throw new InputError('Invalid change validation message.', parsed.errors);
      return { message: 'Validation message updated successfully', data: reviewForViewer((await reviews.validate(parsed.value, actor)).review, actor) };
    },
  );
}
