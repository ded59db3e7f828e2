import type { FastifyInstance, FastifyRequest } from 'fastify';
import { REVIEW_MAX_WAIT_MS, REVIEW_STATUSES, ReviewCommitSchema, ReviewDecisionSchema, ReviewSchema, ReviewSubmitSchema, type Review } from '../../../schemas/review.js';
import { parseWith } from '../../core/zod-errors.js';
import { InputError } from '../../errors.js';
import { defineRoute } from '../http/define-route.js';
import { pagination, PAGING_QUERY, parsePaging, queryOf, stringParam } from '../http/request-helpers.js';
import type { QueryParam, RouteCatalog } from '../http/route-catalog.js';
import { labelInSentence } from '../kinds/kind-def.js';
import type { HoldOptions, ReviewRef, ReviewService } from '../reviews/review-service.js';
import { reviewForViewer } from '../reviews/review-view.js';

const LIST_QUERY: QueryParam[] = [
  ...PAGING_QUERY,
  { name: 'status', type: 'string', description: `Only reviews in these statuses, comma separated: ${REVIEW_STATUSES.join(', ')}.` },
];

function parseOptional<T>(schema: Parameters<typeof parseWith<T>>[0], body: unknown): T {
  const parsed = parseWith(schema, body ?? {});
  if (!parsed.ok) throw new InputError('Invalid request body.', parsed.errors);
  return parsed.value;
}

function statusesOf(query: Record<string, unknown>): string[] | undefined {
  const raw = query['status'];
  if (raw === undefined || raw === '') return undefined;
  const statuses = String(raw).split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = statuses.filter((s) => !(REVIEW_STATUSES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new InputError('Invalid query.', [{ property: 'status', errorMessage: `unknown status ${unknown.map((s) => `'${s}'`).join(', ')}; one of ${REVIEW_STATUSES.join(', ')}` }]);
  return statuses;
}

/**
 * How often a held review read re-reads its review without being woken: in-process writes wake it at
 * once (ReviewChanges); this catches a review turning stale and writes by another process.
 */
const RECHECK_MS = 250;

/**
 * Whether the client of a held request has gone. Not `request.raw.destroyed`: a request is destroyed
 * once its body has been read (Node ≥ 16), while its connection lives on.
 */
function clientGone(request: FastifyRequest): boolean {
  return request.raw.socket?.destroyed ?? request.raw.destroyed;
}

/** What a commit's answer says: committed, or where the validation it started stands. */
function commitMessage(review: Review, started: boolean): string {
  if (!started || review.status === 'committed') return 'Review committed successfully.';
  if (review.status === 'failed_webhook_validation') return 'The pre-commit validation rejected the change; it is blocked.';
  if (review.status === 'validation_timed_out') return 'The pre-commit validation timed out; commit again to retry.';
  if (review.status === 'approved_webhook_validation') return 'The pre-commit validation approved the change; commit to apply it.';
  return `${review.validation?.title ?? 'Pending validation'}.`;
}

/** Reviews of gates, dynamic configs, segments and experiments, and the global review list. */
export function registerReviewRoutes(app: FastifyInstance, catalog: RouteCatalog, reviews: ReviewService, options: { recheckMs?: number } = {}): void {
  const recheckMs = options.recheckMs ?? RECHECK_MS;
  const hold = (request: FastifyRequest): HoldOptions => ({ gone: () => clientGone(request), recheckMs });
  const tag = 'Reviews';
  for (const service of reviews.reviewableKinds()) {
    const { def } = service;
    const name = labelInSentence(def.label);
    const base = `/console/v1/${def.path}/:id/reviews`;
    const item = `${base}/:reviewID`;
    const ref = (request: Parameters<typeof stringParam>[0]): ReviewRef => ({ reviewId: stringParam(request, 'reviewID'), kind: def.kind, entityId: stringParam(request, 'id') });

    // `change` is an entity body one level down (bodyRootLevel 0): it may nest as deep as the entity it becomes.
    defineRoute(app, catalog, { method: 'POST', url: base, summary: `Submit a change of a ${name} for review`, tag, permission: 'submit_reviews', body: ReviewSubmitSchema, response: ReviewSchema, successStatus: 201, bodyRootLevel: 0 }, async (request, actor) => ({
      message: 'Review submitted successfully.',
      data: reviewForViewer(await reviews.submit(def.kind, stringParam(request, 'id'), request.body, actor), actor),
    }));

    defineRoute(app, catalog, { method: 'GET', url: base, summary: `List reviews of a ${name}, newest first`, tag, permission: 'read', list: true, response: ReviewSchema, query: LIST_QUERY }, async (request, actor) => {
      const query = queryOf(request);
      const paging = parsePaging(query);
      const entityId = stringParam(request, 'id');
      const page = await reviews.list({ kind: def.kind, entityId, statuses: statusesOf(query), offset: paging.offset, limit: paging.limit });
      const path = `/console/v1/${def.path}/${encodeURIComponent(entityId)}/reviews`;
      return { message: 'Reviews listed successfully.', data: page.items.map((r) => reviewForViewer(r, actor)), pagination: pagination(path, query, paging, page.total) };
    });

    defineRoute(app, catalog, { method: 'GET', url: item, summary: `Read a review of a ${name}`, tag, permission: 'read', response: ReviewSchema }, async (request, actor) => ({
      message: 'Review read successfully.',
      data: reviewForViewer(await reviews.get(ref(request)), actor),
    }));

    defineRoute(app, catalog, { method: 'DELETE', url: item, summary: `Cancel a review of a ${name} (submitter or admin)`, tag, permission: 'submit_reviews' }, async (request, actor) => {
      await reviews.cancel(ref(request), actor);
      return { message: 'Review canceled successfully.' };
    });

    defineRoute(app, catalog, { method: 'PUT', url: `${item}/approve`, summary: `Approve a review of a ${name}`, tag, permission: 'approve_reviews', body: ReviewDecisionSchema, bodyOptional: true, response: ReviewSchema }, async (request, actor) => ({
      message: 'Review approved successfully.',
      data: reviewForViewer(await reviews.approve(ref(request), actor, parseOptional(ReviewDecisionSchema, request.body).comment), actor),
    }));

    defineRoute(app, catalog, { method: 'PUT', url: `${item}/reject`, summary: `Reject a review of a ${name}`, tag, permission: 'approve_reviews', body: ReviewDecisionSchema, bodyOptional: true, response: ReviewSchema }, async (request, actor) => ({
      message: 'Review rejected successfully.',
      data: reviewForViewer(await reviews.reject(ref(request), actor, parseOptional(ReviewDecisionSchema, request.body).comment), actor),
    }));

    defineRoute(
      app,
      catalog,
      { method: 'PUT', url: `${item}/commit`, summary: `Commit an approved review of a ${name} (or start its pre-commit validation)`, tag, permission: 'commit_reviews', body: ReviewCommitSchema, bodyOptional: true, response: ReviewSchema },
      async (request, actor) => {
        const { review, started } = await reviews.commitAwaiting(ref(request), actor, parseOptional(ReviewCommitSchema, request.body), hold(request));
        return { message: commitMessage(review, started), data: reviewForViewer(review, actor) };
      },
    );
  }

  defineRoute(
    app,
    catalog,
    {
      method: 'GET',
      url: '/console/v1/reviews',
      summary: 'List reviews of every kind, newest first',
      tag,
      permission: 'read',
      list: true,
      response: ReviewSchema,
      query: [...LIST_QUERY, { name: 'kind', type: 'string', description: 'gate, dynamic_config, segment or experiment.' }, { name: 'entityID', type: 'string', description: 'Id of the entity.' }],
    },
    async (request, actor) => {
      const query = queryOf(request);
      const paging = parsePaging(query);
      const str = (key: string): string | undefined => (typeof query[key] === 'string' && query[key] !== '' ? (query[key] as string) : undefined);
      const page = await reviews.list({ kind: str('kind'), entityId: str('entityID'), statuses: statusesOf(query), offset: paging.offset, limit: paging.limit });
      return { message: 'Reviews listed successfully.', data: page.items.map((r) => reviewForViewer(r, actor)), pagination: pagination('/console/v1/reviews', query, paging, page.total) };
    },
  );

  defineRoute(
    app,
    catalog,
    {
      method: 'GET',
      url: '/console/v1/reviews/:reviewID',
      summary: 'Read a review by id; with waitWhile, a long poll that answers once the status changes',
      tag,
      permission: 'read',
      response: ReviewSchema,
      query: [
        { name: 'waitWhile', type: 'string', description: 'Hold the answer while the review has this status (e.g. pending_webhook_validation).' },
        { name: 'waitMs', type: 'integer', description: `How long to hold it at most, ms (default and maximum ${REVIEW_MAX_WAIT_MS}).` },
      ],
    },
    async (request, actor) => {
      const reviewId = stringParam(request, 'reviewID');
      const query = queryOf(request);
      const waitWhile = typeof query['waitWhile'] === 'string' && query['waitWhile'] !== '' ? query['waitWhile'] : undefined;
      // Digits only: Number() would read an empty `?waitMs=` as 0 and `1e3` as 1000.
      const rawWait = query['waitMs'];
      const waitMs = rawWait === undefined ? REVIEW_MAX_WAIT_MS : typeof rawWait === 'string' && /^\d{1,9}$/.test(rawWait) ? Number(rawWait) : NaN;
      if (!Number.isInteger(waitMs) || waitMs < 0 || waitMs > REVIEW_MAX_WAIT_MS) {
        throw new InputError('Invalid query.', [{ property: 'waitMs', errorMessage: `must be an integer from 0 to ${REVIEW_MAX_WAIT_MS}` }]);
      }
      // Clients waiting on approval or validation would otherwise poll; this holds the request instead.
      const review = waitWhile === undefined ? await reviews.get({ reviewId }) : await reviews.awaitChange({ reviewId }, waitWhile, waitMs, hold(request));
      return { message: 'Review read successfully.', data: reviewForViewer(review, actor) };
    },
  );
}
