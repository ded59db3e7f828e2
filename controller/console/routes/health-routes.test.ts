import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../store/postgres/create-postgres-store.js';
import type { Store } from '../../store/ports.js';
import { createTestDatabase } from '../../test-support/postgres-db.js';
import { describeWithPostgres } from '../../test-support/test-environment.js';
import { createTestConsole } from '../../test-support/test-console.js';
import { createConsoleMetrics } from '../http/console-metrics.js';
import { installErrorHandler } from '../http/error-handler.js';
import { readinessReason, registerHealthRoutes, type HealthRouteDeps } from './health-routes.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The health routes alone on an app with the console's error handler, for states a full console can't be put in on demand. */
function healthApp(deps: Partial<HealthRouteDeps> & Pick<HealthRouteDeps, 'store'>): FastifyInstance {
  const app = Fastify();
  installErrorHandler(app);
  registerHealthRoutes(app, { isClosing: () => false, metrics: createConsoleMetrics(), ...deps });
  cleanups.push(() => app.close());
  return app;
}

describe('GET /healthz', () => {
  it('answers the console readiness probe without a key', async () => {
    const c = createTestConsole();
    cleanups.push(() => c.close());
    const res = await c.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('says the process is up even when the database is not: it never calls the store', async () => {
    const c = createTestConsole();
    cleanups.push(() => c.close());
    await c.app.ready();
    await c.store.close();
    expect((await c.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await c.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
  });
});

describe('GET /readyz', () => {
  it('is ready without a key when the SQLite database answers', async () => {
    const c = createTestConsole();
    cleanups.push(() => c.close());
    const res = await c.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready' });
  });

  it('answers 503 in the error envelope, with the reason, when the database is gone', async () => {
    const c = createTestConsole();
    cleanups.push(() => c.close());
    await c.app.ready();
    await c.store.close();
    const res = await c.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 503, message: expect.stringMatching(/^Not ready: the database is not available \(.*not open.*\)\.$/) });
  });

  it('answers 503 while the console is shutting down', async () => {
    const c = createTestConsole();
    cleanups.push(() => c.close());
    let closing = false;
    const app = healthApp({ store: c.store, isClosing: () => closing });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    closing = true;
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 503, message: 'Not ready: the console is shutting down.' });
  });

  it('answers 503 when the database does not answer in time', async () => {
    const hung: Pick<Store, 'ping'> = { ping: () => new Promise<void>(() => undefined) };
    const res = await healthApp({ store: hung, readyTimeoutMs: 50 }).inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 503, message: 'Not ready: the database is not available (the database did not answer within 50 ms).' });
  });

  describeWithPostgres('on PostgreSQL', () => it('is ready on this build\'s schema, 503 naming the versions on a newer one, never showing the password', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const url = new URL(database.url);
    url.password = 'pw-must-not-show';
    const store = createPostgresStore(url.toString());
    cleanups.push(() => store.close());
    await store.open!();
    const app = healthApp({ store });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query("INSERT INTO schema_migrations (version, name, applied_time) SELECT MAX(version) + 1, 'from a newer build', 0 FROM schema_migrations");
    } finally {
      await client.end();
    }
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toMatch(/^Not ready: the database is not available \(The database's schema is at version \d+, this build's is \d+\)\.$/);
    expect(res.body).not.toContain('pw-must-not-show');
  }));
});

describe('readinessReason', () => {
  it('keeps the database\'s answer and drops credentials a driver might echo', () => {
    expect(readinessReason(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe('connect ECONNREFUSED 127.0.0.1:5432');
    const reason = readinessReason(new Error("can't reach postgres://flagops:s3cret@db.internal:5432/flagops (host=db password=hunter2 user=x)"));
    expect(reason).toBe("can't reach postgres://db.internal:5432/flagops (host=db password=*** user=x)");
    expect(readinessReason('plain text')).toBe('plain text');
  });
});
