/**
 * Composition root: the only place that names concrete adapters and wires services together.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { simpleGit } from 'simple-git';
import { createBridge } from './bridge/create-bridge.js';
import { applyRepo, type ApplyEvent } from './reconcile/apply-service.js';
import { ConsoleClient } from './reconcile/console-client.js';
import { createWatchCycle } from './reconcile/watch-cycle.js';
import { FsRepoReader } from './source/fs-repo-reader.js';
import { watchRepo } from './source/watch-repo.js';
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

export interface UpOptions {
  /** Where the database, the prepared repository and the keys of `up` live. */
  stateDir: string;
  /** A git repository to reconcile instead of a copy of examples/config-repo. */
  repoDir?: string;
  host: string;
  port: number;
  bootstrapKey?: string;
  webhookTimeoutMs?: number;
  logger?: FastifyServerOptions['logger'];
  print: (text: string) => void;
  progress: (event: ApplyEvent) => void;
  signal: AbortSignal;
}

interface UpKeys {
  admin?: string;
  submitter?: string;
  approver?: string;
  bridge?: string;
  webhook?: string;
}

/** The package root, found upward from this file (works from controller/ and from dist/controller/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

async function prepareRepo(dir: string, print: (text: string) => void): Promise<void> {
  if (existsSync(join(dir, '.git'))) return;
  cpSync(join(packageRoot(), 'examples', 'config-repo'), dir, { recursive: true });
  const git = simpleGit(dir);
  await git.init(['-b', 'main']);
  await git.addConfig('user.email', 'flagops-up@localhost').addConfig('user.name', 'flagops up');
  await git.add(['-A']);
  await git.commit('flagops up: the example flags');
  print(`Prepared a git repository of the example flags in ${dir}.\n`);
}

/**
 * `flagops up`: the whole loop on one machine. The console on SQLite, the bridge registered as its
 * pre-commit webhook, and the reconciler applying the repository through reviews; afterwards every
 * save is replanned and every new commit applied, until the signal aborts.
 */
export async function runUp(options: UpOptions): Promise<void> {
  mkdirSync(options.stateDir, { recursive: true });
  const repoDir = options.repoDir ?? join(options.stateDir, 'config-repo');
  await prepareRepo(repoDir, options.print);
  const keysFile = join(options.stateDir, 'up-keys.json');
  const saved: UpKeys = existsSync(keysFile) ? (JSON.parse(readFileSync(keysFile, 'utf8')) as UpKeys) : {};

  const consoleInstance = createConsole({ db: join(options.stateDir, 'console.db'), bootstrapKey: options.bootstrapKey ?? saved.admin, webhookTimeoutMs: options.webhookTimeoutMs, logger: options.logger });
  await consoleInstance.app.ready();
  const actorOf = async (secret: string | undefined): Promise<Actor | undefined> => {
    try {
      return secret === undefined ? undefined : await consoleInstance.auth.authenticate(secret);
    } catch {
      return undefined;
    }
  };
  const keyFor = async (secret: string | undefined, email: string, description: string, role = 'member'): Promise<string> => {
    const actor = await actorOf(secret);
    if (secret === undefined || actor === undefined) return (await consoleInstance.auth.createKey({ description, userEmail: email, role })).secret;
    // A state dir from before webhook_receiver existed holds a member bridge key, which can no longer validate.
    if (actor.role !== role && actor.keyId !== null) await consoleInstance.auth.updateKey(actor.keyId, { role });
    return secret;
  };
  const keys: Required<UpKeys> = {
    admin: consoleInstance.bootstrap.secret ?? ((await actorOf(options.bootstrapKey)) !== undefined ? (options.bootstrapKey ?? '') : (saved.admin ?? '')),
    submitter: await keyFor(saved.submitter, 'flagops-up@localhost', 'flagops up: submits reviews'),
    approver: await keyFor(saved.approver, 'release-bot@acme.example', 'flagops up: approves reviews'),
    bridge: await keyFor(saved.bridge, 'bridge@localhost', 'flagops up: the bridge', 'webhook_receiver'),
    webhook: saved.webhook ?? randomBytes(24).toString('base64url'),
  };
  writeFileSync(keysFile, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });

  const address = new URL(await consoleInstance.app.listen({ host: options.host, port: options.port }));
  const url = `http://${options.host}:${address.port}`;
  consoleInstance.setPublicUrl(url);
  options.print(`flagops console listening on ${url}\n`);
  const client = (key: string): ConsoleClient => new ConsoleClient({ baseUrl: url, apiKey: key });

  const branch = (await simpleGit(repoDir).revparse(['--abbrev-ref', 'HEAD'])).trim();
  const { app: bridgeApp } = createBridge({
    repoDir,
    branch,
    console: client(keys.bridge),
    webhookKey: keys.webhook,
    failOpen: false,
    logger: options.logger,
    log: (line) => options.print(`bridge: ${line}\n`),
  });
  const bridgeUrl = new URL(await bridgeApp.listen({ host: '127.0.0.1', port: 0 }));
  const admin = client(keys.admin);
  await admin.request('POST', '/console/v1/settings/precommit_webhook', {
    webhookURL: `http://127.0.0.1:${bridgeUrl.port}/webhook`,
    webhookKey: keys.webhook,
    initialMessage: `flagops bridge checks every change against ${branch} of ${repoDir}.`,
  });
  options.print(`flagops bridge listening on http://127.0.0.1:${bridgeUrl.port} (registered as the console's pre-commit webhook)\n`);

  const desired = new FsRepoReader(repoDir);
  const submitter = client(keys.submitter);
  const approver = client(keys.approver);
  let running = Promise.resolve();
  const applyNow = (why: string): Promise<void> =>
    (running = running.then(async () => {
      options.print(`\n== apply (${why})\n`);
      try {
        const report = await applyRepo({ desired, client: submitter, approver, commit: (await simpleGit(repoDir).revparse(['HEAD'])).trim(), onEvent: options.progress, desiredLabel: repoDir });
        const counts = new Map<string, number>();
        for (const o of report.outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
        const summary = [...counts].map(([s, n]) => `${n} ${s}`).join(', ') || 'nothing to do';
        options.print(`Outcome: ${summary}; ${report.replan.changes.length === 0 ? 'the console matches the repository.' : `${report.replan.changes.length} change(s) remain.`}\n`);
      } catch (error) {
        options.print(`apply failed: ${(error as Error).message}\n`);
      }
    }));
  await applyNow('start');
  options.print(
    [
      '',
      `Console:  ${url}/   (the web console; sign in with the admin key: ${keys.admin || 'see the first run'}; keys of up in ${keysFile})`,
      `Repo:     ${repoDir} (branch ${branch})`,
      'Edit a file there and save to see its plan; commit it and up applies it through a review, the',
      "bridge and the pre-commit webhook. A console change that is not in git is rejected by the bridge.",
      'Ctrl-C stops.',
      '',
    ].join('\n'),
  );

  const cycle = createWatchCycle({ desired, desiredLabel: repoDir, client: submitter, print: options.print });
  let head = (await simpleGit(repoDir).revparse(['HEAD'])).trim();
  const poll = setInterval(() => {
    void simpleGit(repoDir)
      .revparse(['HEAD'])
      .then((now) => {
        if (now.trim() === head) return;
        head = now.trim();
        void applyNow(`new commit ${head.slice(0, 12)}`);
      })
      .catch(() => undefined);
  }, 1000);
  try {
    await watchRepo(repoDir, async () => void (await cycle()), { signal: options.signal, onReady: () => options.print(`Watching ${repoDir} for saves.\n`) });
  } finally {
    clearInterval(poll);
    await running;
    await bridgeApp.close();
    await consoleInstance.close();
  }
}
