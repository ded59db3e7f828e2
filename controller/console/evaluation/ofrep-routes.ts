import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CompiledScope, CompiledSpecsCache } from './compiled-specs.js';
import { BULK_ROUTE, JSON_TYPE, OFREP_BODY_LIMIT, SDK_KEY_TYPES, SINGLE_ROUTE, bearerOf, bulkReply, contextOf, ofrepFailure, singleReply, wholeText, type OfrepReply } from './ofrep-answers.js';
import type { SdkKey, SdkKeyAuth } from '../sdk-key-auth.js';

/**
 * The OpenFeature Remote Evaluation Protocol: `POST /ofrep/v1/evaluate/flags/{key}` and the bulk
 * `POST /ofrep/v1/evaluate/flags` (ETag / If-None-Match → 304), authenticated by an SDK key in
 * `Authorization: Bearer` (or OFREP's `X-API-Key`). Every error answers in the protocol's shape.
 * Browsers may call it with a CLIENT key from the origins `flagops serve --cors-origin` allows.
 * The fast lane (ofrep-fast-lane.ts) answers the requests of known keys with the same answers.
 */

export interface OfrepDeps {
  keys: SdkKeyAuth;
  specs: CompiledSpecsCache;
  /** Origins allowed to call with a CLIENT key from a browser; `*` allows any. */
  corsOrigins: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    sdkKey?: SdkKey;
  }
}

function send(reply: FastifyReply, answer: OfrepReply): FastifyReply {
  if (answer.etag !== undefined) void reply.header('etag', answer.etag);
  if (answer.text === undefined) return reply.status(answer.status).send();
  return reply.status(answer.status).type(JSON_TYPE).send(wholeText(answer.text));
}

function flagKeyOf(request: FastifyRequest): string {
  return (request.params as Record<string, string | undefined>)['*'] ?? '';
}

export function registerOfrepRoutes(app: FastifyInstance, deps: OfrepDeps): void {
  const anyOrigin = deps.corsOrigins.includes('*');
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && (anyOrigin || deps.corsOrigins.includes(origin));

  void app.register(async (scope) => {
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const failure = ofrepFailure(error, request.routeOptions.url === SINGLE_ROUTE ? flagKeyOf(request) : undefined);
      if (failure.unexpected) request.log.error({ err: error }, 'evaluation failed');
      return send(reply, failure);
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
    scope.options(BULK_ROUTE, preflight);
    scope.options(SINGLE_ROUTE, preflight);

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
      const secret = bearerOf(request.headers);
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

    scope.post(SINGLE_ROUTE, { bodyLimit: OFREP_BODY_LIMIT }, (request, reply) => {
      const context = contextOf(request.body);
      return withCompiled(request, (compiled) => send(reply, singleReply(compiled, flagKeyOf(request), context)));
    });

    scope.post(BULK_ROUTE, { bodyLimit: OFREP_BODY_LIMIT }, (request, reply) => {
      const context = contextOf(request.body);
      const ifNoneMatch = request.headers['if-none-match'];
      return withCompiled(request, (compiled) => send(reply, bulkReply(compiled, context, ifNoneMatch)));
    });
  });
}
