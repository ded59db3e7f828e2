import { randomBytes } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { AuthenticationError, UnavailableError } from '../errors.js';
import type { Store } from '../store/ports.js';
import type { AuthService } from './auth-service.js';
import type { EntityService } from './entity-service.js';
import { UNMATCHED_ROUTE, createConsoleMetrics, type ConsoleMetrics } from './http/console-metrics.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandler } from './http/error-handler.js';
import { installJsonBodyParser } from './http/json-body-parser.js';
import { FailedAuthLimiter } from './http/failed-auth-limiter.js';
import { installFastLanes, type FastLane } from './http/fast-lane.js';
import { RateLimiter } from './http/rate-limiter.js';
import { buildOpenApiDocument } from './http/openapi-document.js';
import { RouteCatalog } from './http/route-catalog.js';
import { deferredChildLoggers } from './http/deferred-child-logger.js';
import type { Actor } from './permissions.js';
import { registerAuditRoutes } from './routes/audit-routes.js';
import { registerEntityRoutes, type WriteReviewRouting } from './routes/entity-routes.js';
import { registerHealthRoutes } from './routes/health-routes.js';
import { registerKeyRoutes } from './routes/key-routes.js';
import { registerWebRoutes } from './routes/web-routes.js';

export interface ConsoleAppDeps {
  store: Store;
  auth: AuthService;
  entities: readonly EntityService[];
  /** Submits writes sent with x-respect-review-settings as reviews (the review service). */
  reviewRouting?: WriteReviewRouting;
  publicUrl: () => string;
  /** Extra route groups (reviews, settings, change validation) registered inside the authenticated scope. */
  extraRoutes?: ReadonlyArray<(app: FastifyInstance, catalog: RouteCatalog) => void>;
  logger?: FastifyServerOptions['logger'];
  /** Largest accepted request body, bytes (413 above). */
  bodyLimit?: number;
  /** Requests per key: `perSecond` on average, bursts up to `burst`; 429 above. Off when absent. */
  rateLimit?: { perSecond: number; burst: number };
  /** Failed authentications a client address may make per minute before it gets 429; off when absent or 0. */
  failedAuthPerMinute?: number;
  /** Served at `GET /metrics`; the app makes its own when absent. Pass one to count webhook deliveries into it. */
  metrics?: ConsoleMetrics;
  /** Longest a request (headers and body) may take to arrive, ms; then 408 and the connection is closed. */
  requestTimeoutMs?: number;
  /** Routes applications poll, served in front of Fastify when they can answer a request wholly (see FastLane). */
  fastLanes?: readonly FastLane[];
}

/** A request's headers and body must arrive within this; a client trickling its body is cut off. */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * A connection on which nothing moves either way for this long is closed (a client that stops reading
 * its response): longer than any long poll, and than the keep-alive timeout.
 */
export const IDLE_TIMEOUT_MS = 120_000;
/** An idle keep-alive connection between requests is closed after this (longer than common load balancers' 60 s). */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** Longest path parameter the router passes to a route (an id may be at most 100 characters). */
export const MAX_PARAM_LENGTH = 1000;

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
}

/** An incoming `x-request-id` the console adopts: a short token that is safe in a log line and a header. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request ids for one console: the caller's `x-request-id` when it is a short safe token (a proxy's
 * trace), else this console's random prefix and a counter: unique across replicas, and cheaper than a
 * UUID per request.
 */
export function requestIds(): (header: string | string[] | undefined) => string {
  const prefix = randomBytes(8).toString('hex');
  let next = 0;
  return (header) => {
    if (typeof header === 'string' && REQUEST_ID.test(header)) return header;
    next += 1;
    return `${prefix}-${next.toString(36)}`;
  };
}

/** Builds the console HTTP app. It never listens: the caller (serve, tests via inject) decides. */
export function buildConsoleApp(deps: ConsoleAppDeps): FastifyInstance {
  const requestTimeout = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const nextRequestId = requestIds();
  const app = Fastify({
    logger: deps.logger ?? false,
    // Node checks request timeouts every connectionsCheckingInterval (30 s by default): often enough
    // that a request is cut off close to its limit.
    requestTimeout,
    http: { connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(requestTimeout / 4))), headersTimeout: requestTimeout },
    connectionTimeout: IDLE_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    // Requests that reach the console while it closes are refused by the hook below, in the API's
    // envelope, instead of Fastify's own 503 body.
    return503OnClosing: false,
    // Longer than any valid id, so a too-long id reaches the route and its validator names it (400);
    // beyond this the router answers 414 itself.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    requestIdHeader: false,
    genReqId: (request) => nextRequestId(request.headers['x-request-id']),
    // One line per request, written by the onResponse hook below with the route, the status and the
    // acting key, instead of Fastify's two (incoming, completed) without them.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: deferredChildLoggers,
  });
  const metrics = deps.metrics ?? createConsoleMetrics();
  metrics.readReviewsFrom(deps.store.reviews);
  // Decided once: with logging off, the request path builds no log objects.
  const logRequests = deps.logger !== undefined && deps.logger !== false && (app.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') === true;
  const catalog = new RouteCatalog();
  installErrorHandler(app);

  installJsonBodyParser(app);
  // Fastify parses text/plain by default; the API speaks JSON only, so anything else is a 415.
  app.removeContentTypeParser('text/plain');

  app.decorateRequest('actor', undefined);
  // A callback hook, not an async one: it runs on every request, and Fastify runs a callback hook
  // without an extra promise per hook (bench:api).
  const limiter = deps.rateLimit ? new RateLimiter(deps.rateLimit) : undefined;
  const failedAuth = deps.failedAuthPerMinute
    ? new FailedAuthLimiter({ perMinute: deps.failedAuthPerMinute, log: (address, failures) => app.log.warn({ client: address, failures }, 'failed authentications over the limit: answering 429 until the minute ends') })
    : undefined;
  let closing = false;
  const refreshMarks = deps.store.refreshMarks?.bind(deps.store);
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    // A browser must not guess a type other than the one sent (a JSON body read as HTML).
    void reply.header('x-content-type-options', 'nosniff');
    // A request that arrives on an open connection while the console drains: in-flight requests
    // finish, new ones are turned away (a load balancer retries them on another replica).
    if (closing) {
      void reply.header('connection', 'close');
      done(new UnavailableError('The console is shutting down; retry the request.'));
      return;
    }
    // Decide on the matched route pattern, not the raw URL: `/%63onsole/v1/gates` routes to
    // /console/v1/gates but doesn't start with it.
    const path = request.routeOptions.url ?? request.url;
    if (!path.startsWith('/console/v1/') && path !== '/console/v1') {
      done();
      return;
    }
    // API answers hold secrets (a new key) and per-key data: no cache, shared or private, keeps them.
    void reply.header('cache-control', 'no-store');
    const header = request.headers['service-api-key'];
    const secret = Array.isArray(header) ? header[0] : header;
    const signedIn = (actor: Actor): void => {
      try {
        request.actor = actor;
        if (logRequests) request.log = request.log.child({ keyId: actor.keyId });
        limiter?.take(actor.keyId ?? actor.userEmail);
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    };
    const signIn = (): void => {
      // Checked before the key is (cached or not): an address over the limit learns nothing about the keys it tries.
      try {
        failedAuth?.check(request.ip);
      } catch (error) {
        done(error as Error);
        return;
      }
      const known = deps.auth.cachedActor(secret);
      if (known) return signedIn(known);
      deps.auth.authenticate(secret).then(signedIn, (error: Error) => {
        if (error instanceof AuthenticationError && secret !== undefined && secret !== '') failedAuth?.fail(request.ip);
        done(error);
      });
    };
    // A store shared by several replicas learns what the others wrote before this request reads
    // through its caches: a read that starts after any replica acknowledged a write sees it.
    if (refreshMarks) refreshMarks().then(signIn, done);
    else signIn();
  });

  installFastLanes(
    app.server,
    deps.fastLanes ?? [],
    {
      requestId: nextRequestId,
      answered: (reqId, method, route, status, startedAt) => {
        const ms = performance.now() - startedAt;
        metrics.request(method, route, status, ms / 1000);
        if (status === 500) metrics.storeError();
        if (logRequests) app.log.info({ reqId, method, route, status, responseTime: ms }, 'request completed');
      },
      failed: (reqId, error) => app.log.error({ reqId, err: error }, 'evaluation failed'),
    },
    () => closing,
  );

  // After the response went out: counted and logged off the request's critical path.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    metrics.request(request.method, route, status, reply.elapsedTime / 1000);
    // The error handler answers 500 only for unexpected errors (a failing store, a bug).
    if (status === 500) metrics.storeError();
    if (logRequests) request.log.info({ method: request.method, route: route ?? UNMATCHED_ROUTE, status, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });

  for (const service of deps.entities) registerEntityRoutes(app, catalog, service, deps.reviewRouting);
  registerKeyRoutes(app, catalog, deps.auth, deps.store);
  registerAuditRoutes(app, catalog, deps.store);
  for (const register of deps.extraRoutes ?? []) register(app, catalog);

  let openApi: unknown;
  app.get('/openapi.json', async () => (openApi ??= buildOpenApiDocument(catalog, deps.publicUrl())));
  registerHealthRoutes(app, { store: deps.store, isClosing: () => closing, metrics });
  registerWebRoutes(app);
  return app;
}
