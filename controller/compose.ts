/**
 * Composition root: the only place that names concrete adapters and wires services together.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { AuthService } from './console/auth-service.js';
import { buildConsoleApp } from './console/build-console-app.js';
import { createConsoleMetrics } from './console/http/console-metrics.js';
import { ConfigSpecsService } from './console/config-specs-service.js';
import { EntityService } from './console/entity-service.js';
import { ALL_KINDS } from './console/kinds/all-kinds.js';
import { ReviewService } from './console/reviews/review-service.js';
import { SettingsService } from './console/reviews/settings-service.js';
import { ReviewChanges } from './console/reviews/review-changes.js';
import { retryPolicyFor, WebhookDispatcher } from './console/reviews/webhook-dispatcher.js';
import { registerChangeValidationRoutes } from './console/routes/change-validation-routes.js';
import { registerReviewRoutes } from './console/routes/review-routes.js';
import { registerSettingsRoutes } from './console/routes/settings-routes.js';
import { registerStatsigSdkRoutes } from './console/routes/statsig-sdk-routes.js';
import { SdkKeyAuth } from './console/sdk-key-auth.js';
import { createMemoryStore } from './store/memory/memory-store.js';
import type { Actor } from './console/permissions.js';
import type { Store } from './store/ports.js';
import { openSqliteStore, type Durability } from './store/sqlite/open-sqlite-store.js';
import { createPostgresStore } from './store/postgres/create-postgres-store.js';
import { CompiledSpecsCache } from './console/evaluation/compiled-specs.js';
import { registerOfrepRoutes } from './console/evaluation/ofrep-routes.js';
import { ofrepFastLane } from './console/evaluation/ofrep-fast-lane.js';
import type { FastLaneCounter } from './console/http/fast-lane.js';
import { specsFastLane } from './console/routes/statsig-specs-fast-lane.js';
import { registerEvaluateRoutes } from './console/routes/evaluate-routes.js';
import { describeDbError } from './store/postgres/pg-unavailable.js';
import { ApplyLockService } from './console/apply-lock-service.js';
import { registerApplyLockRoutes } from './console/routes/apply-lock-routes.js';

export interface ConsoleOptions {
  /**
   * The database: a SQLite file, ':memory:' for a throwaway SQLite database, a postgres:// (or
   * postgresql://) URL for a PostgreSQL database several replicas can share, or 'fake' for the
   * in-memory fake store.
   */
  db: string;
  publicUrl?: string;
  bootstrapKey?: string;
  webhookTimeoutMs?: number;
  logger?: FastifyServerOptions['logger'];
  clock?: () => number;
  bodyLimit?: number;
  /** Longest a request may take to arrive (REQUEST_TIMEOUT_MS by default). */
  requestTimeoutMs?: number;
  /** Requests per second per key (bursts up to twice that); 0 or absent: no limit. */
  rateLimitPerSecond?: number;
  /** Failed authentications per client address and minute before 429; 0 or absent: no limit. */
  failedAuthPerMinute?: number;
  /** How often a held review read (`waitWhile`) re-reads without being woken; default 250 ms. */
  reviewRecheckMs?: number;
  /** What an acknowledged write survives (SQLite only); default normal. */
  durability?: Durability;
  /** Origins whose browser pages may call OFREP with a CLIENT key (`*`: any). */
  corsOrigins?: readonly string[];
}

export interface ConsoleInstance {
  app: FastifyInstance;
  store: Store;
  auth: AuthService;
  services: ReadonlyMap<string, EntityService>;
  reviews: ReviewService;
  /** Delivers pre-commit webhooks; started with the console, stopped by close(). */
  webhooks: WebhookDispatcher;
  /**
   * The admin key created at start, when the database had no keys: filled in once the app is ready
   * (`await app.ready()`, or listen / inject, which wait for it).
   */
  bootstrap: { created: boolean; secret?: string; generated: boolean };
  setPublicUrl(url: string): void;
  /** Authenticates the SDK keys applications present (SERVER and CLIENT keys). */
  sdkKeys: SdkKeyAuth;
  /** The entities compiled into Statsig config specs, per SDK key scope. */
  configSpecs: ConfigSpecsService;
  /** Requests the fast lanes answered in front of Fastify (see FastLane): OFREP evaluations, SDK spec downloads. */
  fastLanes: { ofrep: FastLaneCounter; specs: FastLaneCounter };
  /** Stops accepting requests, finishes in-flight ones, then closes the database. */
  close(): Promise<void>;
}

/** Whether a `--db` value names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** The store a `--db` value names (the PostgreSQL one still to be opened: `await store.open?.()`). */
export function openStore(db: string, options: { durability?: Durability; onError?: (error: Error) => void } = {}): Store {
  if (db === 'fake') return createMemoryStore();
  // The same promise on both stores: normal survives a crash of the console process, full an OS crash
  // or power loss too (SQLite: synchronous NORMAL or FULL; PostgreSQL: synchronous_commit off or on).
  if (isPostgresUrl(db)) return createPostgresStore(db, { onError: options.onError, synchronousCommit: options.durability === 'full' ? 'on' : 'off' });
  return openSqliteStore(db, undefined, { durability: options.durability });
}

/** How long a webhook delivery lease lasts: a few retries of the window, at most 5 s (of the default 2-minute window). */
function deliveryLeaseMs(webhookTimeoutMs: number): number {
  return Math.min(5000, Math.max(200, Math.round(webhookTimeoutMs / 8)));
}

export function createConsole(options: ConsoleOptions): ConsoleInstance {
  const clock = options.clock ?? Date.now;
  const store = openStore(options.db, { durability: options.durability, onError: (error) => app.log.error({ error: describeDbError(error) }, 'database connection error') });
  let publicUrl = options.publicUrl ?? 'http://127.0.0.1:8080';
  const auth = new AuthService({ store, clock });
  const settings = new SettingsService({ store, clock });
  const beforeDirectWrite = (kind: string, actor: Actor): Promise<void> => settings.assertDirectWriteAllowed(kind, actor);
  const services = new Map(ALL_KINDS.map((def) => [def.kind, new EntityService(def, { store, clock, publicUrl: () => publicUrl, beforeDirectWrite })]));
  const webhookTimeoutMs = options.webhookTimeoutMs ?? 120_000;
  const changes = new ReviewChanges();
  const metrics = createConsoleMetrics();
  const sdkKeys = new SdkKeyAuth(store);
  const configSpecs = new ConfigSpecsService(store);
  const compiledSpecs = new CompiledSpecsCache(configSpecs);
  const webhooks = new WebhookDispatcher({
    store,
    clock,
    settings,
    retry: retryPolicyFor(webhookTimeoutMs),
    log: (message, fields) => app.log.warn(fields, message),
    changes,
    owner: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    leaseMs: deliveryLeaseMs(webhookTimeoutMs),
    metrics,
  });
  const reviews = new ReviewService({ store, clock, entities: services, settings, webhookTimeoutMs, queue: webhooks, changes });
  const fastLanes = { ofrep: { served: 0 }, specs: { served: 0 } };
  const marks = () => store.marks?.();
  const app = buildConsoleApp({
    store,
    auth,
    entities: [...services.values()],
    reviewRouting: reviews,
    publicUrl: () => publicUrl,
    logger: options.logger,
    metrics,
    bodyLimit: options.bodyLimit,
    requestTimeoutMs: options.requestTimeoutMs,
    rateLimit: options.rateLimitPerSecond ? { perSecond: options.rateLimitPerSecond, burst: 2 * options.rateLimitPerSecond } : undefined,
    failedAuthPerMinute: options.failedAuthPerMinute,
    fastLanes: [specsFastLane({ keys: sdkKeys, specs: configSpecs, marks }, fastLanes.specs), ofrepFastLane({ keys: sdkKeys, specs: compiledSpecs, marks }, fastLanes.ofrep)],
    extraRoutes: [
      (server, catalog) => registerReviewRoutes(server, catalog, reviews, { recheckMs: options.reviewRecheckMs }),
      (server, catalog) => registerChangeValidationRoutes(server, catalog, reviews),
      (server, catalog) => registerSettingsRoutes(server, catalog, settings),
      (server) => registerStatsigSdkRoutes(server, { keys: sdkKeys, specs: configSpecs, metrics }),
      (server, catalog) => registerEvaluateRoutes(server, catalog, compiledSpecs),
      (server) => registerOfrepRoutes(server, { keys: sdkKeys, specs: compiledSpecs, corsOrigins: options.corsOrigins ?? [] }),
      (server, catalog) => registerApplyLockRoutes(server, catalog, new ApplyLockService({ store, clock })),
    ],
  });
  const bootstrap: ConsoleInstance['bootstrap'] = { created: false, generated: false };
  // Everything that needs the database before the first request: its schema, the built-in roles and
  // the bootstrap key, and the pending validations to resume.
  app.addHook('onReady', async () => {
    await store.open?.();
    Object.assign(bootstrap, await auth.bootstrap(options.bootstrapKey));
    // Reviews written by the other replicas on the database: long polls here wake, and a validation
    // decided there stops being delivered here.
    unsubscribe = store.subscribe?.((event) => {
      // Announcements may have been missed (the database connection dropped): look at every pending
      // validation again, and let long polls re-read.
      if (event.topic === 'resync') {
        changes.wakeAll();
        void webhooks.resync().catch(() => undefined);
        return;
      }
      changes.changed(event.id);
      void webhooks.reviewChanged(event.id).catch(() => undefined);
    });
    await webhooks.start();
  });
  let closed = false;
  let unsubscribe: (() => void) | undefined;
  return {
    app,
    store,
    auth,
    services,
    reviews,
    webhooks,
    bootstrap,
    sdkKeys,
    configSpecs,
    fastLanes,
    setPublicUrl: (url) => {
      if (options.publicUrl === undefined) publicUrl = url;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      reviews.releaseHolds();
      await app.close();
      await webhooks.stop();
      unsubscribe?.();
      await store.close();
    },
  };
}

/**
 * The key management of a console database, without the HTTP app (`flagops keys`): the store in its
 * durable mode whatever the console runs with (a key is written once and must survive anything), the
 * built-in roles ensured. `close` closes the store.
 */
export async function openKeyAdmin(db: string): Promise<{ auth: AuthService; close: () => Promise<void> }> {
  const store = openStore(db, { durability: 'full' });
  try {
    await store.open?.();
    const auth = new AuthService({ store, clock: Date.now });
    await auth.ensureBuiltinRoles();
    return { auth, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}
