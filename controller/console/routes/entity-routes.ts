import type { FastifyInstance, FastifyRequest } from 'fastify';
import { REVIEWABLE_KINDS as REVIEWABLE, ReviewSchema } from '../../../schemas/review.js';
import { InputError } from '../../errors.js';
import type { EntityOp, EntityService, WriteOptions, WriteResult } from '../entity-service.js';
import { labelInSentence } from '../kinds/kind-def.js';
import { defineRoute, type Envelope } from '../http/define-route.js';
import type { Actor } from '../permissions.js';
import { pagination, PAGING_QUERY, parseBooleanFlag, parseIfMatch, parsePaging, queryOf, stringParam } from '../http/request-helpers.js';
import type { QueryParam, RouteCatalog } from '../http/route-catalog.js';

const IF_MATCH = [{ name: 'If-Match', description: 'Expected current version, e.g. "3"; a mismatch is a 409.' }];

/** The reference's header that routes a write through reviews where they are required. */
export const RESPECT_REVIEW_SETTINGS = 'x-respect-review-settings';

const RESPECT_HEADER = {
  name: RESPECT_REVIEW_SETTINGS,
  description:
    'Optional header to respect review settings for mutation endpoints: with "true", where reviews are required (is_config_review_required, or the entity\'s reviewSettings.requiredReview) the write is validated as usual and submitted as a review (202, the review; needs submit_reviews) instead of applied, even for a key holding bypass_reviews. Where reviews are not required, and for dry runs, it changes nothing.',
};

const REVIEW_SUBMITTED = { status: 202, description: `${RESPECT_REVIEW_SETTINGS}: true where reviews are required: the change was submitted as this review and applies once it is approved and committed.`, response: ReviewSchema };

/** Submits entity writes as reviews (the review service); absent in consoles without reviews. */
export interface WriteReviewRouting {
  submitWrite(service: EntityService, op: EntityOp, actor: Actor, options: { expectedVersion?: number; description: string }): Promise<{ review: unknown } | { unchanged: Record<string, unknown> } | undefined>;
}

function respectsReviewSettings(request: FastifyRequest): boolean {
  const raw = request.headers[RESPECT_REVIEW_SETTINGS];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new InputError(`Invalid ${RESPECT_REVIEW_SETTINGS} header.`, [{ property: RESPECT_REVIEW_SETTINGS, errorMessage: 'must be true or false' }]);
}

function splitDryRun(body: unknown): { body: unknown; dryRun: boolean } {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'dryRun' in body) {
    const { dryRun, ...rest } = body as Record<string, unknown>;
    return { body: rest, dryRun: parseBooleanFlag(dryRun, 'dryRun', 'body') };
  }
  return { body, dryRun: false };
}

/** CRUD, lifecycle actions and versions for one entity kind, with the same conventions for every kind. */
export function registerEntityRoutes(app: FastifyInstance, catalog: RouteCatalog, service: EntityService, routing?: WriteReviewRouting): void {
  const { def } = service;
  const base = `/console/v1/${def.path}`;
  const item = `/console/v1/${def.itemPath ?? def.path}/:${def.idField}`;
  const dryRunQuery: QueryParam[] = def.dryRun === 'query' ? [{ name: 'dryRun', type: 'boolean', description: 'Validate only; persist nothing.' }] : [];
  const filterQuery: QueryParam[] = Object.keys(def.filters ?? {}).map((name) => ({ name, type: 'string', description: `Filter by ${name}.` }));
  const name = labelInSentence(def.label);
  // A client asking for a dry run where there is none must not get a real write instead: every
  // write refuses a `dryRun` it doesn't take, saying where the dry run is, if anywhere.
  const noDryRun = { dryRun: 'is not supported here: this write has no dry run' };
  const createOrUpdateNoDryRun = def.dryRun === 'body' ? { dryRun: 'is not supported in the query: send "dryRun": true in the body' } : noDryRun;
  const options = (request: Parameters<Parameters<typeof defineRoute>[3]>[0], rawBody: unknown) => {
    const fromBody = def.dryRun === 'body' ? splitDryRun(rawBody) : { body: rawBody, dryRun: false };
    const dryRun = fromBody.dryRun || (def.dryRun === 'query' && parseBooleanFlag(queryOf(request)['dryRun'], 'dryRun', 'query'));
    return { body: fromBody.body, dryRun, expectedVersion: parseIfMatch(request.headers['if-match']) };
  };
  const id = (request: Parameters<typeof stringParam>[0]) => stringParam(request, def.idField);
  // Every write takes the header; only kinds with reviews ever answer with one (202).
  const routed = routing !== undefined && REVIEWABLE.includes(def.kind);
  const writeHeaders = [...IF_MATCH, RESPECT_HEADER];
  const reviewSuccess = routed ? [REVIEW_SUBMITTED] : [];
  /** A write, or with x-respect-review-settings where reviews are required, its review submission (202). */
  const perform = async (request: FastifyRequest, op: EntityOp, actor: Actor, options: WriteOptions): Promise<WriteResult | Envelope> => {
    const respect = respectsReviewSettings(request);
    if (routed && respect && !options.dryRun) {
      const path = request.url.split('?')[0] ?? request.url;
      const submitted = await routing.submitWrite(service, op, actor, { expectedVersion: options.expectedVersion, description: `${request.method} ${path}` });
      if (submitted !== undefined && 'review' in submitted) {
        return { status: 202, message: `${def.label} change submitted for review: it applies once the review is approved and committed.`, data: submitted.review };
      }
      if (submitted !== undefined) return { entity: submitted.unchanged, changed: false };
    }
    return service.execute(op, actor, options);
  };
  const isEnvelope = (result: WriteResult | Envelope): result is Envelope => 'message' in result;

  defineRoute(app, catalog, { method: 'GET', url: base, summary: `List ${name}s`, tag: def.tag, permission: 'read', list: true, response: def.schemas.response, query: [...PAGING_QUERY, ...filterQuery] }, async (request) => {
    const query = queryOf(request);
    const paging = parsePaging(query);
    const filters = Object.fromEntries(Object.entries(query).filter(([k, v]) => k !== 'page' && k !== 'limit' && typeof v === 'string')) as Record<string, string>;
    const message = `${def.label}s listed successfully.`;
    // Taken before the page is read: see ListBodyCache.
    const cache = service.listCache(filters);
    const cached = cache?.get(request.url);
    if (cached !== undefined) return { message, body: cached };
    const page = await service.listJson(paging.offset, paging.limit, filters);
    // The envelope's fields in the order JSON.stringify would write them, around items already serialised.
    const body = `{"message":${JSON.stringify(message)},"data":[${page.items.join(',')}],"pagination":${JSON.stringify(pagination(base, query, paging, page.total))}}`;
    cache?.set(request.url, body);
    return { message, body };
  });

  const dryRunSuccess = def.dryRun === undefined ? [] : [{ status: 200, description: 'Dry run: every check passed; the would-be entity, nothing persisted.' }];
  defineRoute(app, catalog, { method: 'POST', url: base, summary: `Create a ${name}`, tag: def.tag, permission: 'write', body: def.schemas.create, response: def.schemas.response, successStatus: 201, otherSuccess: [...dryRunSuccess, ...reviewSuccess], query: dryRunQuery, refusedQuery: createOrUpdateNoDryRun, headers: [RESPECT_HEADER] }, async (request, actor) => {
    const { body, dryRun } = options(request, request.body);
    const result = await perform(request, { type: 'create', body }, actor, { dryRun });
    if (isEnvelope(result)) return result;
    return dryRun
      ? { status: 200, message: `${def.label} is valid (dry run, nothing persisted).`, data: result.entity }
      : { message: `${def.label} created successfully.`, data: result.entity };
  });

  const readMessage = `${def.label} read successfully.`;
  // Not async: a read the cache answers goes out without waiting for a promise.
  defineRoute(app, catalog, { method: 'GET', url: item, summary: `Read a ${name}`, tag: def.tag, permission: 'read', response: def.schemas.response }, (request) => {
    const entityId = id(request);
    const cached = service.cachedRead(entityId);
    return cached ? { message: readMessage, data: cached } : service.get(entityId).then((data) => ({ message: readMessage, data }));
  });

  const writeRoute = (type: 'update' | 'patch', method: 'POST' | 'PATCH', schema: typeof def.schemas.update) => {
    if (!schema) return;
    const summary = type === 'update' ? `Fully update a ${name}` : `Partially update a ${name}`;
    defineRoute(app, catalog, { method, url: item, summary, tag: def.tag, permission: 'write', body: schema, response: def.schemas.response, query: dryRunQuery, refusedQuery: createOrUpdateNoDryRun, headers: writeHeaders, otherSuccess: reviewSuccess }, async (request, actor) => {
      const { body, dryRun, expectedVersion } = options(request, request.body);
      const result = await perform(request, { type, id: id(request), body }, actor, { dryRun, expectedVersion });
      if (isEnvelope(result)) return result;
      const message = dryRun ? `${def.label} is valid (dry run, nothing persisted).` : result.changed ? `${def.label} updated successfully.` : `${def.label} unchanged.`;
      return { message, data: result.entity };
    });
  };
  writeRoute('update', 'POST', def.schemas.update);
  writeRoute('patch', 'PATCH', def.schemas.patch);

  if (def.deletable) {
    defineRoute(app, catalog, { method: 'DELETE', url: item, summary: `Delete a ${name}`, tag: def.tag, permission: 'write', refusedQuery: noDryRun, headers: writeHeaders, otherSuccess: reviewSuccess }, async (request, actor) => {
      const result = await perform(request, { type: 'delete', id: id(request) }, actor, { expectedVersion: parseIfMatch(request.headers['if-match']) });
      if (isEnvelope(result)) return result;
      return { message: `${def.label} deleted successfully.` };
    });
  }

  for (const [action, spec] of Object.entries(def.actions ?? {})) {
    const url = `${item}/${spec.path ?? action}`;
    const paramNames = [...(spec.path ?? '').matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');
    const response = spec.respond === undefined ? def.schemas.response : spec.respond === null ? undefined : spec.respond.schema;
    const summary = spec.summary ?? `${action.replace(/_/g, ' ')} a ${name}`;
    defineRoute(
      app,
      catalog,
      { method: spec.method ?? 'PUT', url, summary, tag: def.tag, permission: 'write', body: spec.body, bodyOptional: spec.body === undefined || spec.bodyOptional === true, response, refusedQuery: noDryRun, headers: writeHeaders, otherSuccess: reviewSuccess },
      async (request, actor) => {
        const params = Object.fromEntries(paramNames.map((p) => [p, stringParam(request, p)]));
        const result = await perform(request, { type: 'action', id: id(request), action, body: request.body, params }, actor, { expectedVersion: parseIfMatch(request.headers['if-match']) });
        if (isEnvelope(result)) return result;
        const message = spec.message ?? (result.changed ? `${def.label} ${spec.done} successfully.` : `${def.label} was already ${spec.done}.`);
        if (spec.respond === null) return { message };
        return { message, data: spec.respond === undefined || result.entity === undefined ? result.entity : spec.respond.view(result.entity) };
      },
    );
  }

  for (const view of Object.values(def.views ?? {})) {
    const url = `${item}/${view.path}`;
    defineRoute(app, catalog, { method: 'GET', url, summary: view.summary, tag: def.tag, permission: 'read', response: view.schema, list: view.list, query: view.list ? PAGING_QUERY : [] }, async (request) => {
      const entityId = id(request);
      const data = view.read(await service.get(entityId));
      if (!view.list) return { message: view.message, data };
      const query = queryOf(request);
      const paging = parsePaging(query);
      const items = Array.isArray(data) ? data : [];
      const path = `/console/v1/${def.itemPath ?? def.path}/${encodeURIComponent(entityId)}/${view.path}`;
      return { message: view.message, data: items.slice(paging.offset, paging.offset + paging.limit), pagination: pagination(path, query, paging, items.length) };
    });
  }

  defineRoute(app, catalog, { method: 'GET', url: `${item}/versions`, summary: `List versions of a ${name}, newest first`, tag: def.tag, permission: 'read', list: true, response: def.schemas.response, query: PAGING_QUERY }, async (request) => {
    const query = queryOf(request);
    const paging = parsePaging(query);
    const entityId = id(request);
    const page = await service.versions(entityId, paging.offset, paging.limit);
    const path = `/console/v1/${def.itemPath ?? def.path}/${encodeURIComponent(entityId)}/versions`;
    return { message: `${def.label} versions listed successfully.`, data: page.items, pagination: pagination(path, query, paging, page.total) };
  });
}
