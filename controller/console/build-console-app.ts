import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { UnavailableError } from '../errors.js';
import type { Store } from '../store/ports.js';
import type { AuthService } from './auth-service.js';
import type { EntityService } from './entity-service.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandler } from './http/error-handler.js';
import { RateLimiter } from './http/rate-limiter.js';
import { buildOpenApiDocument } from './http/openapi-document.js';
import { RouteCatalog } from './http/route-catalog.js';
import type { Actor } from './permissions.js';
import { registerAuditRoutes } from './routes/audit-routes.js';
import { registerEntityRoutes } from './routes/entity-routes.js';
import { registerHealthRoutes } from './routes/health-routes.js';
import { registerKeyRoutes } from './routes/key-routes.js';
import { registerWebRoutes } from './routes/web-routes.js';

export interface ConsoleAppDeps {
  store: Store;
  auth: AuthService;
  entities: readonly EntityService[];
  publicUrl: () => string;
  /** Extra route groups (reviews, settings, change validation) registered inside the authenticated scope. */
  extraRoutes?: ReadonlyArray<(app: FastifyInstance, catalog: RouteCatalog) => void>;
  logger?: FastifyServerOptions['logger'];
  /** Largest accepted request body, bytes (413 above). */
  bodyLimit?: number;
  /** Requests per key: `perSecond` on average, bursts up to `burst`; 429 above. Off when absent. */
  rateLimit?: { perSecond: number; burst: number };
}

/** Longest path parameter the router passes to a route (an id may be at most 100 characters). */
export const MAX_PARAM_LENGTH = 1000;

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
}

/** Builds the console HTTP app. It never listens: the caller (serve, tests via inject) decides. */
export function buildConsoleApp(deps: ConsoleAppDeps): FastifyInstance {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    // Requests that reach the console while it closes are refused by the hook below, in the API's
    // envelope, instead of Fastify's own 503 body.
    return503OnClosing: false,
    // Longer than any valid id, so a too-long id reaches the route and its validator names it (400);
    // beyond this the router answers 414 itself.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  });
  const catalog = new RouteCatalog();
  installErrorHandler(app);

  // Lifecycle actions (PUT .../enable) carry no body, and many clients still send a JSON content
  // type: an empty body is "no body", not malformed JSON.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return jsonParser(request, String(body), done);
  });
  // Fastify parses text/plain by default; the API speaks JSON only, so anything else is a 415.
  app.removeContentTypeParser('text/plain');

  app.decorateRequest('actor', undefined);
  // A callback hook, not an async one: it runs on every request, and Fastify runs a callback hook
  // without a promise and a microtask hop (bench:api).
  const limiter = deps.rateLimit ? new RateLimiter(deps.rateLimit) : undefined;
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
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
    const header = request.headers['service-api-key'];
    try {
      request.actor = deps.auth.authenticate(Array.isArray(header) ? header[0] : header);
      limiter?.take(request.actor.keyId ?? request.actor.userEmail);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });

  for (const service of deps.entities) registerEntityRoutes(app, catalog, service);
  registerKeyRoutes(app, catalog, deps.auth, deps.store);
  registerAuditRoutes(app, catalog, deps.store);
  for (const register of deps.extraRoutes ?? []) register(app, catalog);

  let openApi: unknown;
  app.get('/openapi.json', async () => (openApi ??= buildOpenApiDocument(catalog, deps.publicUrl())));
  app.get('/health', async () => ({ status: 'ok' }));
  registerHealthRoutes(app);
  registerWebRoutes(app);
  return app;
}
