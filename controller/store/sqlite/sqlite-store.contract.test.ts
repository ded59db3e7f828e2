import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateKeyError } from '../ports.js';
import { auditEntry, describeStoreContract, gate, keyRecord, reviewRecord } from '../store-contract.js';
import { MIGRATIONS } from './migrations.js';
import { sqliteAtVersion } from '../../test-support/sqlite-at-version.js';
import { openSqliteStore } from './open-sqlite-store.js';

describeStoreContract('sqlite :memory:', async () => {
  const store = openSqliteStore(':memory:');
  return { store, cleanup: () => store.close() };
});

describeStoreContract('sqlite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagops-store-'));
  const store = openSqliteStore(join(dir, 'nested', 'console.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite file database', () => {
  /** First version after the shipped migrations, so the probes below never collide with a real one. */
  const NEXT = Math.max(...MIGRATIONS.map((m) => m.version)) + 1;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'flagops-sqlite-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const readOnly = <T>(path: string, read: (db: Database.Database) => T): T => {
    const db = new Database(path, { readonly: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  };
  const migrationRows = (path: string) =>
    readOnly(path, (db) => db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number; name: string }[]);

  it('creates missing folders, uses WAL and records every migration', async () => {
    const path = join(dir, 'nested', 'deeper', 'console.db');
    await openSqliteStore(path).close();
    expect(readOnly(path, (db) => db.pragma('journal_mode', { simple: true }))).toBe('wal');
    expect(migrationRows(path)).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  });

  it('pages a kind in insertion order through an index, without sorting the kind for each page', async () => {
    const path = join(dir, 'console.db');
    const store = openSqliteStore(path);
    await store.transaction(async (tx) => {
      for (const id of ['c', 'a', 'b']) await tx.entities.insert(gate(id));
    });
    expect((await store.entities.page('gate', 1, 2)).items.map((r) => r.id)).toEqual(['a', 'b']);
    await store.close();
    const plan = readOnly(path, (db) => db.prepare('EXPLAIN QUERY PLAN SELECT kind, id, version, data FROM entities WHERE kind = ? ORDER BY seq LIMIT ? OFFSET ?').all('gate', 10, 0) as { detail: string }[]);
    const details = plan.map((row) => row.detail).join('\n');
    expect(details).toContain('entities_kind_seq');
    expect(details).not.toContain('TEMP B-TREE');
  });

  it('reopens an existing database without re-applying migrations and keeps the data', async () => {
    const path = join(dir, 'console.db');
    const first = openSqliteStore(path);
    await first.transaction((tx) => tx.entities.insert(gate('persisted')));
    await first.close();
    const second = openSqliteStore(path);
    try {
      expect(await second.entities.get('gate', 'persisted')).toEqual(gate('persisted'));
    } finally {
      await second.close();
    }
    expect(migrationRows(path)).toHaveLength(MIGRATIONS.length);
  });

  it('applies only migrations that are new, in version order', async () => {
    const path = join(dir, 'console.db');
    await openSqliteStore(path).close();
    const later = [
      { version: NEXT + 1, name: 'third', sql: 'ALTER TABLE probe ADD COLUMN extra TEXT' },
      { version: NEXT, name: 'second', sql: 'CREATE TABLE probe (x INTEGER)' },
    ];
    await openSqliteStore(path, [...MIGRATIONS, ...later]).close();
    await openSqliteStore(path, [...MIGRATIONS, ...later]).close();
    expect(migrationRows(path).map((r) => r.name)).toEqual([...MIGRATIONS.map((m) => m.name), 'second', 'third']);
  });

  it("checkpoints the WAL into the database file on a timer, and at SQLite's threshold only as a safety net", async () => {
    const path = join(dir, 'console.db');
    const store = openSqliteStore(path, MIGRATIONS, { checkpointIntervalMs: 20 });
    try {
      const sizeBefore = statSync(path).size;
      const big = 'x'.repeat(4000);
      await store.transaction(async (tx) => {
        for (let i = 0; i < 100; i++) await tx.entities.insert(gate(`g${i}`, 1, { big }));
      });
      const deadline = Date.now() + 5000;
      while (statSync(path).size < sizeBefore + 300_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(statSync(path).size).toBeGreaterThan(sizeBefore + 300_000);
    } finally {
      await store.close();
    }
    expect(readOnly(path, (db) => db.prepare('SELECT COUNT(*) AS n FROM entities').get())).toEqual({ n: 100 });
  });

  it('migration 7 turns every existing key into a CONSOLE key without environment or target-app limits', async () => {
    const path = join(dir, 'console.db');
    // A database as a build before migration 7 left it (that build's store would open it).
    const db = sqliteAtVersion(path, 6);
    db.prepare('INSERT INTO users (email, role, created_time) VALUES (?, ?, ?)').run('a@example.com', 'admin', 1);
    db.prepare('INSERT INTO api_keys (id, user_email, description, hash, scopes, active, created_time, last_rotated_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run('k1', 'a@example.com', 'old', 'hash-k1', '[]', 1, 100, null);
    db.close();
    const store = openSqliteStore(path);
    try {
      expect(await store.auth.getKey('k1')).toEqual(keyRecord('k1', { description: 'old' }));
    } finally {
      await store.close();
    }
  });

  it('migration 8 keeps every audit row and its id, and later rows take ids past every earlier one', async () => {
    const path = join(dir, 'console.db');
    const db = sqliteAtVersion(path, 7);
    const insert = db.prepare('INSERT INTO audit_log (time, actor_email, action, kind, entity_id, version) VALUES (?, ?, ?, ?, ?, ?)');
    for (let i = 1; i <= 3; i++) insert.run(i, 'a@example.com', 'update', 'gate', 'g', i);
    db.close();
    const store = openSqliteStore(path);
    try {
      const before = (await store.audit.list({ offset: 0, limit: 10 })).items;
      expect(before.map((e) => [e.id, e.version])).toEqual([['3', 3], ['2', 2], ['1', 1]]);
      await store.audit.append(auditEntry({ entityId: 'g', version: 4 }));
      const after = (await store.audit.list({ kind: 'gate', entityId: 'g', offset: 0, limit: 10 })).items;
      expect(after.map((e) => e.id)).toEqual(['4', '3', '2', '1']);
      expect((await store.audit.list({ actorEmail: 'a@example.com', offset: 0, limit: 10 })).total).toBe(4);
    } finally {
      await store.close();
    }
    expect(readOnly(path, (db) => db.prepare("SELECT sql FROM sqlite_master WHERE name = 'audit_log'").get())).toEqual({ sql: expect.not.stringContaining('AUTOINCREMENT') as unknown });
    expect(readOnly(path, (db) => db.prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'audit_log' AND type = 'index' ORDER BY name").all())).toEqual([{ name: 'audit_log_actor' }, { name: 'audit_log_entity' }]);
  });

  it('migration 9 keeps every version and its key, and stores a snapshot past 1 KB in its table leaf, not an overflow page', async () => {
    const path = join(dir, 'console.db');
    const db = sqliteAtVersion(path, 8);
    const insert = db.prepare('INSERT INTO entity_versions (kind, id, version, time, data) VALUES (?, ?, ?, ?, ?)');
    for (let v = 1; v <= 3; v++) insert.run('gate', 'g', v, v * 10, JSON.stringify({ id: 'g', name: 'g', version: v }));
    insert.run('segment', 's', 1, 5, JSON.stringify({ id: 's', name: 's', version: 1 }));
    db.close();
    const big = 'x'.repeat(1200);
    const store = openSqliteStore(path);
    try {
      const gates = (await store.entities.versions('gate', 'g', 0, 10)).items;
      expect(gates.map((v) => [v.version, v.time, v.data['version']])).toEqual([[3, 30, 3], [2, 20, 2], [1, 10, 1]]);
      expect((await store.entities.versions('segment', 's', 0, 10)).total).toBe(1);
      // The key stays unique: a taken version is refused as a duplicate, like the other stores.
      await expect(store.entities.appendVersion({ kind: 'gate', id: 'g', version: 3, time: 40, data: { id: 'g' } })).rejects.toBeInstanceOf(DuplicateKeyError);
      const pagesBefore = readOnly(path, (db) => db.pragma('page_count', { simple: true }) as number);
      for (let v = 4; v < 104; v++) await store.entities.appendVersion({ kind: 'gate', id: 'g', version: v, time: v * 10, data: { id: 'g', version: v, description: big } });
      const grown = readOnly(path, (db) => db.pragma('page_count', { simple: true }) as number) - pagesBefore;
      // 100 snapshots of ≈ 1.25 KB: three to a 4 KB leaf (≈ 34 pages and the index); one overflow page each made it ≥ 100.
      expect(grown).toBeLessThan(60);
      const latest = (await store.entities.versions('gate', 'g', 0, 2)).items;
      expect(latest.map((v) => v.version)).toEqual([103, 102]);
      expect(latest[0]?.data['description']).toBe(big);
    } finally {
      await store.close();
    }
    expect(readOnly(path, (db) => db.prepare("SELECT sql FROM sqlite_master WHERE name = 'entity_versions'").get())).toEqual({ sql: expect.not.stringContaining('WITHOUT ROWID') as unknown });
    expect(readOnly(path, (db) => db.prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'entity_versions' AND type = 'index' ORDER BY name").all())).toEqual([{ name: 'entity_versions_key' }]);
  });

  it('leaves a failing migration unrecorded and its changes undone', () => {
    const path = join(dir, 'console.db');
    const broken = [...MIGRATIONS, { version: NEXT, name: 'broken', sql: 'CREATE TABLE half (x INTEGER); INSERT INTO no_such_table VALUES (1);' }];
    expect(() => openSqliteStore(path, broken)).toThrow(/no_such_table/);
    expect(migrationRows(path).map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(readOnly(path, (db) => db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get())).toBeUndefined();
  });
});

describe('SQLite reviews', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'flagops-reviews-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps reviews and their pending validation across close and open', async () => {
    const path = join(dir, 'console.db');
    const first = openSqliteStore(path);
    await first.reviews.insert(reviewRecord('r1', { status: 'pending_webhook_validation' }));
    await first.close();
    const second = openSqliteStore(path);
    try {
      expect((await second.reviews.withStatus('pending_webhook_validation')).map((r) => r.id)).toEqual(['r1']);
    } finally {
      await second.close();
    }
  });

  it("reads the decision fields fresh while the submitted part is kept parsed: another connection's decision shows", async () => {
    const path = join(dir, 'console.db');
    const first = openSqliteStore(path);
    const second = openSqliteStore(path);
    try {
      await first.reviews.insert(reviewRecord('r1'));
      expect((await first.reviews.get('r1'))?.status).toBe('pending');
      await second.reviews.update({ ...reviewRecord('r1'), status: 'approved', approvedBy: 'carol@example.com' });
      expect(await first.reviews.get('r1')).toEqual({ ...reviewRecord('r1'), status: 'approved', approvedBy: 'carol@example.com' });
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('indexes only the reviews pending validation (migration 5), and resumes them through that index', async () => {
    const path = join(dir, 'console.db');
    const store = openSqliteStore(path);
    await store.reviews.insert(reviewRecord('r1', { status: 'pending_webhook_validation' }));
    await store.reviews.insert(reviewRecord('r2'));
    await store.close();
    const db = new Database(path, { readonly: true });
    try {
      const indexes = (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reviews' AND sql IS NOT NULL").all() as { name: string; sql: string }[]).map((i) => i.name);
      expect(indexes.sort()).toEqual(['reviews_entity', 'reviews_pending_validation']);
      expect(db.prepare("SELECT COUNT(*) FROM reviews INDEXED BY reviews_pending_validation WHERE status = 'pending_webhook_validation'").pluck().get()).toBe(1);
      const plan = db.prepare("EXPLAIN QUERY PLAN SELECT id, data, state FROM reviews WHERE status = 'pending_webhook_validation' ORDER BY seq").all() as { detail: string }[];
      expect(plan.map((row) => row.detail).join('\n')).toContain('reviews_pending_validation');
    } finally {
      db.close();
    }
  });

  it('reads a row written before the state column (everything in data), and a decision on it keeps what was submitted', async () => {
    const path = join(dir, 'console.db');
    await openSqliteStore(path).close();
    // What migration 4 leaves of an older row: the whole record in data, state NULL.
    const legacy = reviewRecord('r1', { description: 'from before' });
    const db = new Database(path);
    db.prepare('INSERT INTO reviews (id, kind, entity_id, status, data) VALUES (?, ?, ?, ?, ?)').run('r1', 'gate', 'g1', 'pending', JSON.stringify(legacy));
    db.close();
    const store = openSqliteStore(path);
    try {
      expect(await store.reviews.get('r1')).toEqual(legacy);
      await store.reviews.update({ ...legacy, status: 'approved', approvedBy: 'carol@example.com' });
      expect(await store.reviews.get('r1')).toEqual({ ...legacy, status: 'approved', approvedBy: 'carol@example.com' });
      expect((await store.reviews.list({ statuses: ['approved'], offset: 0, limit: 10 })).items).toEqual([{ ...legacy, status: 'approved', approvedBy: 'carol@example.com' }]);
    } finally {
      await store.close();
    }
  });
});
