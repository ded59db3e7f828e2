/**
 * Composition root: the only place that names concrete adapters and wires services together.
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { AuthService } from './console/auth-service.js';
import { buildConsoleApp } from './console/build-console-app.js';
import { EntityService } from './console/entity-service.js';
import { ALL_KINDS } from './console/kinds/all-kinds.js';
import { ReviewService } from './console/reviews/review-service.js';
import { SettingsService } from './console/reviews/settings-service.js';
import { retryPolicyFor, WebhookDispatcher } from './console/reviews/webhook-dispatcher.js';
import { registerChangeValidationRoutes } from './console/routes/change-validation-routes.js';
import { registerReviewRoutes } from './console/routes/review-routes.js';
import { registerSettingsRoutes } from './console/routes/settings-routes.js';
import { createMemoryStore } from './store/memory/memory-store.js';
import type { Actor } from './console/permissions.js';
import type { Store } from './store/ports.js';
import { openSqliteStore } from './store/sqlite/open-sqlite-store.js';

export interface ConsoleOptions {
  /** SQLite file, ':memory:' for a throwaway SQLite database, or 'fake' for the in-memory fake store. */
  db: string;
  publicUrl?: string;
  bootstrapKey?: string;
  webhookTimeoutMs?: number;
  logger?: FastifyServerOptions['logger'];
  clock?: () => number;
  bodyLimit?: number;
}

export interface ConsoleInstance {
  app: FastifyInstance;
  store: Store;
  auth: AuthService;
  services: ReadonlyMap<string, EntityService>;
  reviews: ReviewService;
  /** Delivers pre-commit webhooks; started with the console, stopped by close(). */
  webhooks: WebhookDispatcher;
  /** Secret of the admin key created at start, when the database had no keys. */
  bootstrap: { created: boolean; secret?: string; generated: boolean };
  setPublicUrl(url: string): void;
  /** Stops accepting requests, finishes in-flight ones, then closes the database. */
  close(): Promise<void>;
}

export function createConsole(options: ConsoleOptions): ConsoleInstance {
  const clock = options.clock ?? Date.now;
  const store = options.db === 'fake' ? createMemoryStore() : openSqliteStore(options.db);
  let publicUrl = options.publicUrl ?? 'http://127.0.0.1:8080';
  const auth = new AuthService({ store, clock });
  const bootstrap = auth.bootstrap(options.bootstrapKey);
  const settings = new SettingsService({ store, clock });
  const beforeDirectWrite = (kind: string, actor: Actor): void => settings.assertDirectWriteAllowed(kind, actor);
  const services = new Map(ALL_KINDS.map((def) => [def.kind, new EntityService(def, { store, clock, publicUrl: () => publicUrl, beforeDirectWrite })]));
  const webhookTimeoutMs = options.webhookTimeoutMs ?? 120_000;
  const webhooks = new WebhookDispatcher({ store, clock, settings, retry: retryPolicyFor(webhookTimeoutMs), log: (message, fields) => app.log.warn(fields, message) });
  const reviews = new ReviewService({ store, clock, entities: services, settings, webhookTimeoutMs, queue: webhooks });
  const app = buildConsoleApp({
    store,
    auth,
    entities: [...services.values()],
    publicUrl: () => publicUrl,
    logger: options.logger,
    bodyLimit: options.bodyLimit,
    extraRoutes: [
      (server, catalog) => registerReviewRoutes(server, catalog, reviews),
      (server, catalog) => registerChangeValidationRoutes(server, catalog, reviews),
      (server, catalog) => registerSettingsRoutes(server, catalog, settings),
    ],
  });
  webhooks.start();
  let closed = false;
  return {
    app,
    store,
    auth,
    services,
    reviews,
    webhooks,
    bootstrap,
    setPublicUrl: (url) => {
      if (options.publicUrl === undefined) publicUrl = url;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      await webhooks.stop();
      store.close();
    },
  };
}
