import { createHash } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { evaluateFlag } from '../../core/eval/flag-keys.js';
import { userFromContext } from '../../core/eval/ofrep-context.js';
import { AuthenticationError, InputError, NotAllowedError } from '../../errors.js';
import type { CompiledScope, CompiledSpecsCache } from './compiled-specs.js';
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

/** Bulk answer tags kept per compiled specs: the contexts polling between two writes. */
const BULK_TAGS_MAX = 20_000;

const SDK_KEY_TYPES = ['SERVER', 'CLIENT'] as const;

/** Whether an If-None-Match header names `etag` (weak or strong) or is `*`. */
function matchesTag(ifNoneMatch: string, etag: string): boolean {
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*');
}

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
    // A callback hook with a synchronous path: an app polling with a key already resolved since the
    // last key change costs a map lookup, not a promise.
    const admit = (request: FastifyRequest, reply: FastifyReply, key: SdkKey): void => {
      request.sdkKey = key;
      const origin = request.headers.origin;
      // A SERVER key is a secret of a server: no browser page gets to read what it answers.
      if (key.type === 'CLIENT' && allowed(origin)) {
        void reply.headers({ 'access-control-allow-origin': origin, 'access-control-expose-headers': 'ETag', vary: 'Origin' });
      }
    };
    scope.addHook('onRequest', (request, reply, done) => {
      if (request.method === 'OPTIONS') return done();
      const secret = bearer(request);
      const known = deps.keys.cached(secret, SDK_KEY_TYPES);
      if (known !== undefined) {
        admit(request, reply, known);
        return done();
      }
      // Refreshes the store's marks: the specs read below are then as fresh as any replica's last write.
      deps.keys.authenticate(secret, SDK_KEY_TYPES).then((key) => {
        admit(request, reply, key);
        done();
      }, done);
    });

    const contextOf = (request: FastifyRequest): unknown => {
      const body = request.body;
      if (body === undefined || body === null) throw new InputError('The request has no body: send {"context": {...}}.');
      if (typeof body !== 'object' || Array.isArray(body)) throw new InputError('The body must be an object: {"context": {...}}.');
      return (body as Record<string, unknown>)['context'];
    };

    /** Runs `answer` with the key's compiled specs: at once when they are current, else once they are. */
    const withCompiled = (request: FastifyRequest, answer: (compiled: CompiledScope) => void): Promise<void> | undefined => {
      const key = request.sdkKey as SdkKey;
      const current = deps.specs.cached(key);
      if (current !== undefined) {
        answer(current);
        return undefined;
      }
      return deps.specs.forScope({ environments: key.environments, targetApps: key.targetApps }, true).then(answer);
    };

    scope.post(SINGLE, { bodyLimit: OFREP_BODY_LIMIT }, (request, reply) => {
      const flagKey = flagKeyOf(request);
      const parsed = userFromContext(contextOf(request));
      if ('problem' in parsed) {
        void reply.status(400).send({ key: flagKey, errorCode: parsed.problem.code, errorDetails: parsed.problem.message });
        return undefined;
      }
      return withCompiled(request, (compiled) => {
        const found = compiled.flags.lookup(flagKey);
        if ('error' in found) {
          if (found.error === 'not_found') void reply.status(404).send({ key: flagKey, errorCode: 'FLAG_NOT_FOUND', errorDetails: found.message });
          else void reply.status(400).send({ key: flagKey, errorCode: 'GENERAL', errorDetails: found.message });
          return;
        }
        const { evaluation, value } = evaluateFlag(compiled.evaluator, found.found, parsed.user, { decidingRuleOnly: true });
        // An answer the engine cannot give is OFREP's GENERAL error (see ofrepAnswer).
        void reply
          .status(evaluation.reason === 'unsupported' ? 400 : 200)
          .type('application/json; charset=utf-8')
          .send(compiled.answerTexts.text(flagKey, found.found, evaluation, value));
      });
    });

    scope.post(BULK, { bodyLimit: OFREP_BODY_LIMIT }, (request, reply) => {
      const parsed = userFromContext(contextOf(request));
      if ('problem' in parsed) {
        void reply.status(400).send({ errorCode: parsed.problem.code, errorDetails: parsed.problem.message });
        return undefined;
      }
      const ifNoneMatch = request.headers['if-none-match'];
      return withCompiled(request, (compiled) => {
        const tags = compiled.bulkTags;
        const contextKey = tags === undefined ? undefined : JSON.stringify(parsed.user);
        // A client polling with the tag of its last answer, nothing changed since: 304 without evaluating.
        const known = contextKey === undefined ? undefined : tags?.get(contextKey);
        if (known !== undefined && typeof ifNoneMatch === 'string' && matchesTag(ifNoneMatch, known)) {
          void reply.header('etag', known).status(304).send();
          return;
        }
        // One user, one context: each segment and holdout is checked once for all the flags.
        const ctx = { gateMemo: new Map(), decidingRuleOnly: true };
        // The same text as JSON.stringify({ flags: answers }), from each flag's kept answer texts.
        let body = '{"flags":[';
        let first = true;
        for (const { key, ref } of compiled.flags.all()) {
          const { evaluation, value } = evaluateFlag(compiled.evaluator, ref, parsed.user, ctx);
          body += first ? '' : ',';
          body += compiled.answerTexts.text(key, ref, evaluation, value);
          first = false;
        }
        body += ']}';
        // The tag is the answer's own digest: equal answers, equal tags, whatever changed underneath.
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        if (tags !== undefined && contextKey !== undefined) {
          if (tags.size >= BULK_TAGS_MAX) tags.clear();
          tags.set(contextKey, etag);
        }
        void reply.header('etag', etag);
        if (typeof ifNoneMatch === 'string' && matchesTag(ifNoneMatch, etag)) void reply.status(304).send();
        else void reply.status(200).type('application/json; charset=utf-8').send(body);
      });
    });
  });
}
