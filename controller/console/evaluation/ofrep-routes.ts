import { createHash } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { evaluateFlag } from '../../core/eval/flag-keys.js';
import { userFromContext } from '../../core/eval/ofrep-context.js';
import { AuthenticationError, InputError, NotAllowedError } from '../../errors.js';
import type { CompiledScope, CompiledSpecsCache } from './compiled-specs.js';
import { ofrepAnswer } from './ofrep-answer.js';
import type { SdkKey, SdkKeyAuth } from '../sdk-key-auth.js';

/**
 * The OpenFeature Remote Evaluation Protocol: `POST /ofrep/v1/evaluate/flags/{key}` and the bulk
 * `POST /ofrep/v1/evaluate/flags` (ETag / If-None-Match → 304), authenticated by an SDK key in
 * `Authorization: Bearer` (or OFREP's `X-API-Key`). Every error answers in the protocol's shape.
 * Browsers may call it with a CLIENT key from the origins `flagops serve --cors-origin` allows.
 */

export interface OfrepDeps {
  keys: SdkKeyAuth;
  specs: CompiledSpecsCache;
  /** Origins allowed to call with a CLIENT key from a browser; `*` allows any. */
  corsOrigins: readonly string[];
}

/** An evaluation context is small; a larger body is refused before it is parsed. */
export const OFREP_BODY_LIMIT = 64 * 1024;

/** Characters of bulk answers kept per compiled specs (the contexts polling between two writes). */
const BULK_ANSWERS_BYTES = 16 * 1024 * 1024;

const SINGLE = '/ofrep/v1/evaluate/flags/*';
const BULK = '/ofrep/v1/evaluate/flags';

declare module 'fastify' {
  interface FastifyRequest {
    sdkKey?: SdkKey;
  }
}

const PARSE_ERRORS = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_CTP_BODY_TOO_LARGE', 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', 'FST_ERR_CTP_EMPTY_TYPE', 'FST_ERR_CTP_INVALID_TYPE']);

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(header.trim());
    return m ? m[1] : header.trim();
  }
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' ? apiKey : undefined;
}

function flagKeyOf(request: FastifyRequest): string {
  return (request.params as Record<string, string | undefined>)['*'] ?? '';
}

export function registerOfrepRoutes(app: FastifyInstance, deps: OfrepDeps): void {
  const anyOrigin = deps.corsOrigins.includes('*');
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && (anyOrigin || deps.corsOrigins.includes(origin));

  void app.register(async (scope) => {
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const key = request.routeOptions.url === SINGLE ? { key: flagKeyOf(request) } : {};
      if (error instanceof AuthenticationError) return reply.status(401).send({ errorDetails: error.message });
      if (error instanceof NotAllowedError) return reply.status(403).send({ errorDetails: error.message });
      if (error instanceof InputError || (error.code !== undefined && PARSE_ERRORS.has(error.code))) {
        const details = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? `The request body is larger than ${OFREP_BODY_LIMIT} bytes.` : error.message;
        return reply.status(400).send({ ...key, errorCode: 'PARSE_ERROR', errorDetails: details });
      }
      request.log.error({ err: error }, 'evaluation failed');
      return reply.status(500).send({ errorDetails: 'An internal error prevented the evaluation.' });
    });

    const preflight = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const origin = request.headers.origin;
      if (allowed(origin)) {
        void reply.headers({
          'access-control-allow-origin': origin,
          'access-control-allow-methods': 'POST, OPTIONS',
          'access-control-allow-headers': 'Authorization, Content-Type, If-None-Match, X-API-Key',
          'access-control-max-age': '600',
          vary: 'Origin',
        });
      }
      void reply.status(204).send();
    };
    scope.options(BULK, preflight);
    scope.options(SINGLE, preflight);

    // Authenticated before the body is read: a caller without a valid key learns nothing about its body.
    scope.addHook('onRequest', async (request, reply) => {
      if (request.method === 'OPTIONS') return;
      // Refreshes the store's marks: the specs read below are then as fresh as any replica's last write.
      const key = await deps.keys.authenticate(bearer(request), ['SERVER', 'CLIENT']);
      request.sdkKey = key;
      const origin = request.headers.origin;
      // A SERVER key is a secret of a server: no browser page gets to read what it answers.
      if (key.type === 'CLIENT' && allowed(origin)) {
        void reply.headers({ 'access-control-allow-origin': origin, 'access-control-expose-headers': 'ETag', vary: 'Origin' });
      }
    });

    const contextOf = (request: FastifyRequest): unknown => {
      const body = request.body;
      if (body === undefined || body === null) throw new InputError('The request has no body: send {"context": {...}}.');
      if (typeof body !== 'object' || Array.isArray(body)) throw new InputError('The body must be an object: {"context": {...}}.');
      return (body as Record<string, unknown>)['context'];
    };

    const compiledFor = (key: SdkKey): Promise<CompiledScope> => deps.specs.forScope({ environments: key.environments, targetApps: key.targetApps }, true);

    scope.post(SINGLE, { bodyLimit: OFREP_BODY_LIMIT }, async (request, reply) => {
      const flagKey = flagKeyOf(request);
      const parsed = userFromContext(contextOf(request));
      if ('problem' in parsed) return reply.status(400).send({ key: flagKey, errorCode: parsed.problem.code, errorDetails: parsed.problem.message });
      const compiled = await compiledFor(request.sdkKey as SdkKey);
      const found = compiled.flags.lookup(flagKey);
      if ('error' in found) {
        if (found.error === 'not_found') return reply.status(404).send({ key: flagKey, errorCode: 'FLAG_NOT_FOUND', errorDetails: found.message });
        return reply.status(400).send({ key: flagKey, errorCode: 'GENERAL', errorDetails: found.message });
      }
      const { evaluation, value } = evaluateFlag(compiled.evaluator, found.found, parsed.user);
      const answer = ofrepAnswer(flagKey, found.found, evaluation, value);
      return reply.status('errorCode' in answer ? 400 : 200).send(answer);
    });

    scope.post(BULK, { bodyLimit: OFREP_BODY_LIMIT }, async (request, reply) => {
      const parsed = userFromContext(contextOf(request));
      if ('problem' in parsed) return reply.status(400).send({ errorCode: parsed.problem.code, errorDetails: parsed.problem.message });
      const compiled = await compiledFor(request.sdkKey as SdkKey);
      const cacheKey = compiled.bulkAnswers ? JSON.stringify(parsed.user) : '';
      let answer = compiled.bulkAnswers?.byContext.get(cacheKey);
      if (answer === undefined) {
        // One user, one context: each segment and holdout is checked once for all the flags.
        const ctx = { gateMemo: new Map() };
        const flags = compiled.flags.all().map(({ key, ref }) => {
          const { evaluation, value } = evaluateFlag(compiled.evaluator, ref, parsed.user, ctx);
          return ofrepAnswer(key, ref, evaluation, value);
        });
        const body = JSON.stringify({ flags });
        // The tag is the answer's own digest: equal answers, equal tags, whatever changed underneath.
        answer = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
        const kept = compiled.bulkAnswers;
        if (kept) {
          const size = body.length + cacheKey.length;
          if (kept.bytes + size > BULK_ANSWERS_BYTES) {
            kept.byContext.clear();
            kept.bytes = 0;
          }
          kept.byContext.set(cacheKey, answer);
          kept.bytes += size;
        }
      }
      const { body, etag } = answer;
      void reply.header('etag', etag);
      const ifNoneMatch = request.headers['if-none-match'];
      if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*')) {
        return reply.status(304).send();
      }
      return reply.status(200).type('application/json; charset=utf-8').send(body);
    });
  });
}
