import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, queryDatabase, type TestDatabase } from '../../test-support/postgres-db.js';
import { describeWithPostgres } from '../../test-support/test-environment.js';
import type { Store, StoreEvent, StoreRepos } from '../ports.js';
import { currentMarks, delay, describeStoreContract, gate, keyRecord, reviewRecord } from '../store-contract.js';
import { createPostgresStore, MARKS_APPLICATION_NAME, type PostgresStoreOptions } from './create-postgres-store.js';
import { LISTENER_APPLICATION_NAME } from './pg-listener.js';
import { PG_MIGRATIONS } from './pg-migrations.js';
import { UnavailableError } from '../../errors.js';

describeWithPostgres('Store contract on PostgreSQL', () => describeStoreContract('postgres', async () => {
  const database = await createTestDatabase();
  const store = createPostgresStore(database.url);
  await store.open!();
  return {
    store,
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
}));

/** Runs statements on the test database directly, as another client would. */
const sql = queryDatabase;

/** Polls until check passes (events and reconnects arrive asynchronously), failing after timeoutMs. */
async function eventually(check: () => void | Promise<void>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await delay(20);
    }
  }
}

describe('test databases', () => {
  it('fail with a message that says where PostgreSQL was looked for and how to point elsewhere', async () => {
    await expect(createTestDatabase('postgres://postgres@127.0.0.1:1/postgres')).rejects.toThrow(
      /PostgreSQL for tests is not reachable at postgres:\/\/postgres@127\.0\.0\.1:1\/postgres .*FLAGOPS_TEST_PG_URL/,
    );
  });
});

/** The newest shipped migration: probes below take the versions after it. */
const NEWEST = Math.max(...PG_MIGRATIONS.map((m) => m.version));

describeWithPostgres('PostgreSQL store', () => {
  let database: TestDatabase;
  const stores: Store[] = [];
  const storeOn = (options: PostgresStoreOptions = {}): Store => {
    const store = createPostgresStore(database.url, options);
    stores.push(store);
    return store;
  };
  const opened = async (options: PostgresStoreOptions = {}): Promise<Store> => {
    const store = storeOn(options);
    await store.open!();
    return store;
  };
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await database.drop();
  });

  describe('open, migrations and ping', () => {
    it('fails every call before open() with an error that says so, and after close()', async () => {
      const store = storeOn();
      expect(store.dialect).toBe('postgres');
      await expect(store.entities.get('gate', 'a')).rejects.toThrow(/not open yet.*open\(\)/);
      await expect(store.transaction(async () => undefined)).rejects.toThrow(/not open yet/);
      await expect(store.ping()).rejects.toThrow(/not open yet/);
      await store.open!();
      await store.ping();
      await store.close();
      await store.close(); // idempotent
      await expect(store.entities.get('gate', 'a')).rejects.toThrow(/closed/);
      await expect(store.open!()).rejects.toThrow(/closed/);
    });

    it('records the migrations; replicas opening a fresh database together all start, and the schema is made once', async () => {
      const replicas = [storeOn(), storeOn(), storeOn()];
      await Promise.all(replicas.map((store) => store.open!()));
      const rows = await sql<{ version: number; name: string }>(database.url, 'SELECT version, name FROM schema_migrations ORDER BY version');
      expect(rows).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      await replicas[0]!.entities.insert(gate('a'));
      expect(await replicas[2]!.entities.get('gate', 'a')).toEqual(gate('a'));
      for (const store of replicas) await store.ping();
    });

    it('reopens a migrated database without applying anything again, and keeps the data', async () => {
      const first = await opened();
      await first.entities.insert(gate('persisted'));
      await first.close();
      const second = await opened();
      expect(await second.entities.get('gate', 'persisted')).toEqual(gate('persisted'));
      expect(await sql(database.url, 'SELECT version FROM schema_migrations')).toHaveLength(PG_MIGRATIONS.length);
    });

    it('refuses to open a database whose schema is newer than this build knows, and ping reports it on a running replica', async () => {
      const running = await opened();
      await sql(database.url, "INSERT INTO schema_migrations (version, name, applied_time) VALUES (999, 'from the future', 0)");
      await expect(running.ping()).rejects.toThrow(/version 999/);
      const late = storeOn();
      await expect(late.open!()).rejects.toThrow(new RegExp(`schema is at version 999, newer than this build knows \\(${NEWEST}\\): refusing to start`));
      await expect(late.entities.list('gate')).rejects.toThrow(/not open yet/);
    });

    it('applies new migrations in order in one transaction, and a failing one leaves the database as it was', async () => {
      await (await opened()).close();
      const broken = [
        ...PG_MIGRATIONS,
        { version: NEWEST + 2, name: 'broken', sql: 'INSERT INTO no_such_table VALUES (1)' },
        { version: NEWEST + 1, name: 'probe', sql: 'CREATE TABLE probe (x INTEGER)' },
      ];
      await expect(storeOn({ migrations: broken }).open!()).rejects.toThrow(
        new RegExp(`migration ${NEWEST + 2} \\(broken\\) failed: relation "no_such_table" does not exist`),
      );
      expect(await sql(database.url, "SELECT to_regclass('probe') AS probe")).toEqual([{ probe: null }]);
      const fixed = [...PG_MIGRATIONS, { version: NEWEST + 2, name: 'third', sql: 'ALTER TABLE probe ADD COLUMN extra TEXT' }, broken[PG_MIGRATIONS.length + 1]!];
      await storeOn({ migrations: fixed }).open!();
      expect((await sql<{ name: string }>(database.url, 'SELECT name FROM schema_migrations ORDER BY version')).map((r) => r.name)).toEqual([
        ...PG_MIGRATIONS.map((m) => m.name),
        'probe',
        'third',
      ]);
    });

    it('migration 2 turns every existing key into a CONSOLE key without environment or target-app limits', async () => {
      await (await opened({ migrations: PG_MIGRATIONS.filter((m) => m.version < 2) })).close();
      await sql(database.url, "INSERT INTO users (email, role, created_time) VALUES ('a@example.com', 'admin', 1)");
      await sql(
        database.url,
        "INSERT INTO api_keys (id, user_email, description, hash, scopes, active, created_time, last_rotated_time) VALUES ('k1', 'a@example.com', 'old', 'hash-k1', '[]', true, 100, NULL)",
      );
      const store = await opened();
      expect(await store.auth.getKey('k1')).toEqual(keyRecord('k1', { description: 'old' }));
    });

    it('open() reports an unreachable server', async () => {
      const store = createPostgresStore('postgres://postgres:secret@127.0.0.1:1/nowhere');
      await expect(store.open!()).rejects.toThrow("Can't open the PostgreSQL store at 127.0.0.1:1/nowhere: connect ECONNREFUSED");
      await expect(store.open!()).rejects.not.toThrow(/secret/);
      await store.close();
    });
  });

  describe('behaviour the other stores share, checked where PostgreSQL could differ', () => {
    it('orders key ids and role names bytewise, as SQLite does, whatever the database collation', async () => {
      const store = await opened();
      await store.auth.upsertUser({ email: 'a@example.com', role: 'member', createdTime: 1 });
      for (const id of ['k_b', 'kB', 'ka']) await store.auth.insertKey(keyRecord(id, { createdTime: 5 }));
      expect((await store.auth.listKeys()).map((k) => k.id)).toEqual(['kB', 'k_b', 'ka']);
      for (const name of ['b_role', 'Zed', 'alpha']) await store.roles.upsert({ name, permissions: [], builtin: false });
      expect((await store.roles.list()).map((r) => r.name)).toEqual(['Zed', 'alpha', 'b_role']);
    });

    it('refuses a key for an unknown user, as SQLite does', async () => {
      const store = await opened();
      await expect(store.auth.insertKey(keyRecord('k1', { userEmail: 'nobody@example.com' }))).rejects.toThrow(/foreign key/);
    });

    it('a transaction whose failed statement was caught is rolled back and reported, not committed', async () => {
      const store = await opened();
      await expect(
        store.transaction(async (tx) => {
          await tx.entities.insert(gate('a'));
          await tx.auth.insertKey(keyRecord('k1', { userEmail: 'nobody@example.com' })).catch(() => undefined);
        }),
      ).rejects.toThrow(/rolled back/);
      expect(await store.entities.get('gate', 'a')).toBeUndefined();
      // The connection went back to the pool usable.
      await store.transaction((tx) => tx.entities.insert(gate('b')));
      expect((await store.entities.list('gate')).map((r) => r.id)).toEqual(['b']);
    });

    it('filters a list page in the database: equal fields and any of some tags, counting every match', async () => {
      const store = await opened();
      await store.transaction(async (tx) => {
        for (let i = 0; i < 30; i++) await tx.entities.insert(gate(`g${String(i).padStart(2, '0')}`, 1, { type: i % 2 === 0 ? 'TEMPORARY' : 'PERMANENT', tags: i % 3 === 0 ? ['big', 'x'] : i % 3 === 1 ? ['small'] : [] }));
        await tx.entities.insert({ kind: 'segment', id: 'seg', version: 1, data: { id: 'seg', tags: ['big'] } });
      });
      const page = await store.entities.pageWhere!('gate', [{ field: 'tags', hasAny: ['big'] }], 2, 3);
      expect(page.total).toBe(10);
      expect(page.items.map((r) => r.id)).toEqual(['g06', 'g09', 'g12']);
      const both = await store.entities.pageWhere!('gate', [{ field: 'tags', hasAny: ['big', 'small'] }, { field: 'type', equals: 'TEMPORARY' }], 0, 100);
      expect(both.items.map((r) => r.id)).toEqual(['g00', 'g04', 'g06', 'g10', 'g12', 'g16', 'g18', 'g22', 'g24', 'g28']);
      expect(both.total).toBe(10);
      expect(await store.entities.pageWhere!('gate', [{ field: 'type', equals: "x' OR '1'='1" }], 0, 10)).toEqual({ total: 0, items: [] });
      await expect(store.entities.pageWhere!('gate', [{ field: "type' --", equals: 'x' }], 0, 10)).rejects.toThrow(/Unknown list filter field/);
    });

    it("refuses a transaction's repositories once it has ended", async () => {
      const store = await opened();
      let kept: StoreRepos | undefined;
      await store.transaction(async (tx) => {
        kept = tx;
      });
      await expect(kept!.entities.insert(gate('late'))).rejects.toThrow(/transaction has ended/);
      expect(await store.entities.get('gate', 'late')).toBeUndefined();
    });

    it('runs transactions on as many connections as the pool allows, the rest waiting their turn', async () => {
      const store = await opened({ poolSize: 2 });
      let inside = 0;
      let most = 0;
      await Promise.all(
        ['a', 'b', 'c', 'd', 'e'].map((id) =>
          store.transaction(async (tx) => {
            most = Math.max(most, ++inside);
            await tx.entities.insert(gate(id));
            await delay(20);
            inside--;
          }),
        ),
      );
      expect(most).toBe(2);
      expect(await store.entities.list('gate')).toHaveLength(5);
    });

    it('runs transactions of different serializeOn keys alongside each other', async () => {
      const store = await opened();
      let release!: () => void;
      const held = store.transaction(() => new Promise<void>((resolve) => (release = resolve)), { serializeOn: 'gate\u0000one' });
      await delay(5);
      await store.transaction((tx) => tx.entities.insert(gate('two')), { serializeOn: 'gate\u0000two' });
      release();
      await held;
      expect((await store.entities.list('gate')).map((r) => r.id)).toEqual(['two']);
    });

    it('statements a transaction issues without waiting run in order and answer each its own', async () => {
      const store = await opened();
      const [inserted, read, listed, updated, reread] = await store.transaction((tx) =>
        Promise.all([tx.entities.insert(gate('a')), tx.entities.get('gate', 'a'), tx.entities.list('gate'), tx.entities.update(gate('a', 2)), tx.entities.version('gate', 'a')]),
      );
      expect([inserted, read, listed.map((r) => r.id), updated, reread]).toEqual([undefined, gate('a'), ['a'], undefined, 2]);
      expect(await store.entities.get('gate', 'a')).toEqual(gate('a', 2));
    });

    it('a deferred entity write that fails is reported by the next statement and by the commit, and nothing is kept', async () => {
      const store = await opened();
      await store.entities.insert(gate('a'));
      const change = (id: string) => ({
        record: gate(id, 2),
        mode: 'update' as const,
        version: { kind: 'gate', id, version: 2, time: 2, data: gate(id, 2).data },
        audit: { time: 2, actorEmail: 'a@example.com', actorKeyId: null, action: 'update', kind: 'gate', entityId: id, version: 2, reviewId: null, details: null },
      });
      let next: unknown;
      await expect(
        store.transaction(async (tx) => {
          await tx.entities.get('gate', 'a');
          await tx.entities.save(change('ghost'));
          next = await tx.entities.get('gate', 'a').catch((error: Error) => error);
          await tx.entities.save(change('a'));
        }),
      ).rejects.toThrow('gate ghost could not be written at version 2');
      expect(String(next)).toMatch(/gate ghost could not be written at version 2/);
      expect(await store.entities.get('gate', 'a')).toEqual(gate('a'));
      expect((await store.audit.list({ offset: 0, limit: 10 })).total).toBe(0);
    });

    it('fails a call that waits longer than the connect timeout for a connection, rather than hanging', async () => {
      const store = await opened({ poolSize: 1, connectTimeoutMs: 200 });
      let release!: () => void;
      const held = store.transaction(() => new Promise<void>((resolve) => (release = resolve)));
      await delay(20);
      await expect(store.entities.list('gate')).rejects.toThrow(/timeout/);
      release();
      await held;
      expect(await store.entities.list('gate')).toEqual([]);
    });
  });

  describe('change marks', () => {
    it('has no marks before the first refresh', async () => {
      const store = await opened();
      expect(store.marks!()).toBeUndefined();
      await store.refreshMarks!();
      expect(store.marks!()).toEqual({ data: expect.stringMatching(/^\d+:\d+:/), settings: '0', auth: '0' });
    });

    it('a refresh asked for after a write reflects it, even while an earlier refresh is in flight', async () => {
      const store = await opened();
      await store.refreshMarks!();
      const before = store.marks!();
      const first = store.refreshMarks!();
      // Committed while the first query may already be running: the refreshes asked for after it
      // must reflect it.
      const written = store.settings.set('reviews', { is_config_review_required: true });
      await written;
      const later = [store.refreshMarks!(), store.refreshMarks!(), store.refreshMarks!()];
      await Promise.all([first, ...later]);
      expect(store.marks!()?.settings).not.toBe(before?.settings);
    });

    it('runs on a connection of its own; when that drops, a refresh still answers (on the pool) and the connection comes back', async () => {
      const store = await opened();
      await store.refreshMarks!();
      const marksConnections = (): Promise<unknown[]> => sql(database.url, 'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [MARKS_APPLICATION_NAME]);
      expect(await marksConnections()).toHaveLength(1);
      await sql(database.url, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [MARKS_APPLICATION_NAME]);
      await eventually(() => expect(marksConnections()).resolves.toHaveLength(0));
      await store.settings.set('reviews', { is_config_review_required: true });
      const settingsBefore = store.marks!()?.settings;
      await eventually(async () => {
        await store.refreshMarks!();
        expect(store.marks!()?.settings).not.toBe(settingsBefore);
      });
      await eventually(async () => {
        await store.refreshMarks!();
        expect(await marksConnections()).toHaveLength(1);
      });
    });
  });

  describe('two replicas on one database', () => {
    it("a write through one is visible through the other, and moves the other's marks after it refreshes", async () => {
      const a = await opened();
      const b = await opened();
      const before = await currentMarks(b);
      await a.entities.insert(gate('a'));
      expect(await b.entities.get('gate', 'a')).toEqual(gate('a'));
      const afterEntity = await currentMarks(b);
      expect(afterEntity?.data).not.toBe(before?.data);
      expect(afterEntity?.settings).toBe(before?.settings);
      await a.auth.upsertUser({ email: 'a@example.com', role: 'admin', createdTime: 1 });
      const afterAuth = await currentMarks(b);
      expect(afterAuth?.auth).not.toBe(afterEntity?.auth);
      await a.settings.set('reviews', { is_config_review_required: true });
      expect((await currentMarks(b))?.settings).not.toBe(afterAuth?.settings);
    });

    it('writes to one entity through two replicas serialize (If-Match holds across replicas)', async () => {
      const a = await opened();
      const b = await opened();
      await a.entities.insert(gate('g', 1));
      const write = (store: Store) =>
        store.transaction(async (tx) => {
          const version = await tx.entities.version('gate', 'g');
          if (version !== 1) return 'conflict';
          await delay(50);
          await tx.entities.update(gate('g', 2));
          return 'written';
        });
      expect((await Promise.all([write(a), write(b)])).sort()).toEqual(['conflict', 'written']);
    });

    it('a lock serializes transactions on one name across replicas, also before the row it guards exists', async () => {
      const a = await opened();
      const b = await opened();
      const create = (store: Store, permission: string) =>
        store.transaction(async (tx) => {
          await tx.lock?.('role:racing');
          if (await tx.roles.get('racing')) return 'conflict';
          await delay(50);
          await tx.roles.upsert({ name: 'racing', permissions: [permission], builtin: false });
          return 'created';
        });
      expect((await Promise.all([create(a, 'read'), create(b, 'write')])).sort()).toEqual(['conflict', 'created']);
      // Outside a transaction there is nothing to hold.
      expect(a.lock).toBeUndefined();
    });

    it('one decision per review across replicas', async () => {
      const a = await opened();
      const b = await opened();
      await a.reviews.insert(reviewRecord('r1'));
      const approve = (store: Store, by: string) =>
        store.transaction(async (tx) => {
          const review = (await tx.reviews.get('r1'))!;
          if (review.status !== 'pending') return undefined;
          await delay(50);
          await tx.reviews.update({ ...review, status: 'approved', approvedBy: by });
          return by;
        });
      const decided = (await Promise.all([approve(a, 'a@example.com'), approve(b, 'b@example.com')])).filter((by) => by !== undefined);
      expect(decided).toHaveLength(1);
      expect((await b.reviews.get('r1'))?.approvedBy).toBe(decided[0]);
    });

    it("one replica's publish reaches the other's subscribers (and its own), until they unsubscribe", async () => {
      const a = await opened();
      const b = await opened();
      const atB: StoreEvent[] = [];
      const atA: StoreEvent[] = [];
      const stopB = b.subscribe!((event) => atB.push(event));
      a.subscribe!((event) => atA.push(event));
      await a.publish!({ topic: 'review', id: 'r1' });
      await eventually(() => expect(atB).toEqual([{ topic: 'review', id: 'r1' }]));
      await eventually(() => expect(atA).toEqual([{ topic: 'review', id: 'r1' }]));
      stopB();
      await a.publish!({ topic: 'review', id: 'r2' });
      await eventually(() => expect(atA).toHaveLength(2));
      expect(atB).toHaveLength(1);
    });

    it('ignores notifications on the channel that are not events', async () => {
      const a = await opened();
      const seen: StoreEvent[] = [];
      a.subscribe!((event) => seen.push(event));
      await sql(database.url, "SELECT pg_notify('flagops_events', 'not json'), pg_notify('flagops_events', '{\"topic\": 1}')");
      await a.publish!({ topic: 'review', id: 'r1' });
      await eventually(() => expect(seen).toEqual([{ topic: 'review', id: 'r1' }]));
    });

    it('the listening connection reconnects when it drops, and events flow again', async () => {
      const errors: Error[] = [];
      const b = await opened({ listenRetryMs: 20, onError: (error) => errors.push(error) });
      const a = await opened();
      const seen: StoreEvent[] = [];
      b.subscribe!((event) => seen.push(event));
      const killed = await sql(database.url, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [LISTENER_APPLICATION_NAME]);
      expect(killed.length).toBeGreaterThan(0);
      await eventually(async () => {
        await a.publish!({ topic: 'review', id: 'after' });
        expect(seen.some((event) => event.id === 'after')).toBe(true);
      });
      expect(errors.length).toBeGreaterThan(0);
      // Whatever was announced while it was down is lost: the subscribers are told to read again.
      expect(seen.findIndex((event) => event.topic === 'resync')).toBeGreaterThanOrEqual(0);
      expect(seen.findIndex((event) => event.topic === 'resync')).toBeLessThan(seen.findIndex((event) => event.id === 'after'));
    });

    it('a transaction whose connection drops fails with a retryable UnavailableError, the process carries on, and the next one commits', async () => {
      const store = await opened();
      await store.transaction(async (tx) => tx.entities.insert(gate('kept')));
      const failed = await store
        .transaction(async (tx) => {
          await tx.lock!('dropped');
          // This transaction's own connection is ended by the server (as a restart does), with no pool listener on it.
          await sql(database.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'");
          await delay(50);
          await tx.entities.insert(gate('lost'));
        })
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(UnavailableError);
      expect((failed as Error).message).toMatch(/^The database is not available \(.+\); retry the request\.$/);
      await store.transaction(async (tx) => tx.entities.insert(gate('after')));
      expect(await store.entities.get('gate', 'lost')).toBeUndefined();
      expect((await store.entities.get('gate', 'after'))?.id).toBe('after');
    });

    it('idle pooled connections the server ends are reported to onError by message and replaced; the store still answers', async () => {
      const errors: Error[] = [];
      const store = await opened({ onError: (error) => errors.push(error) });
      await Promise.all([store.ping(), store.ping(), store.ping()]);
      await sql(database.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = ''");
      await eventually(() => expect(errors.length).toBeGreaterThan(0));
      await eventually(() => store.ping());
      await store.transaction(async (tx) => tx.entities.insert(gate('after_drop')));
    });

    it('a lease held by one replica is not taken by another until it expires or is released, on the database clock', async () => {
      const a = await opened();
      const b = await opened();
      expect(await a.leases!.acquire('review:r1', 'replica-a', 60_000)).toBe(true);
      expect(await b.leases!.acquire('review:r1', 'replica-b', 60_000)).toBe(false);
      expect(await a.leases!.acquire('review:r1', 'replica-a', 60_000)).toBe(true); // renewed
      expect((await b.leases!.list('review:')).map((lease) => [lease.name, lease.owner])).toEqual([['review:r1', 'replica-a']]);
      expect(await b.leases!.list('other:')).toEqual([]);
      await b.leases!.release('review:r1', 'replica-b'); // not its own: no effect
      expect(await b.leases!.acquire('review:r1', 'replica-b', 60_000)).toBe(false);
      await a.leases!.release('review:r1', 'replica-a');
      expect(await b.leases!.acquire('review:r1', 'replica-b', 500)).toBe(true);
      expect(await a.leases!.acquire('review:r1', 'replica-a', 60_000)).toBe(false);
      await delay(700);
      expect(await a.leases!.acquire('review:r1', 'replica-a', 60_000)).toBe(true);
      expect(await b.leases!.acquire('other', 'replica-b', 60_000)).toBe(true);
    });

    it('of replicas racing for a free lease, exactly one gets it', async () => {
      const replicas = await Promise.all([opened(), opened(), opened()]);
      const got = await Promise.all(replicas.map((store, i) => store.leases!.acquire('review:r9', `replica-${i}`, 60_000)));
      expect(got.filter(Boolean)).toHaveLength(1);
    });
  });
});
