/**
 * One contract suite for every Store implementation: the SQLite adapter (in memory and on a file) and
 * the in-memory fake must behave the same, so tests that use the fake prove something about SQLite.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory/memory-store.js';
import { DuplicateKeyError, type AuditEntry, type EntityRecord, type KeyRecord, type Store } from './ports.js';
import { MIGRATIONS } from './sqlite/migrations.js';
import { openSqliteStore } from './sqlite/open-sqlite-store.js';

const tmp = mkdtempSync(join(tmpdir(), 'flagops-store-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let fileCounter = 0;

const IMPLEMENTATIONS: [string, () => Store][] = [
  ['sqlite :memory:', () => openSqliteStore(':memory:')],
  ['sqlite file', () => openSqliteStore(join(tmp, `contract-${++fileCounter}`, 'console.db'))],
  ['memory fake', () => createMemoryStore()],
];

const gate = (id: string, version = 1, extra: Record<string, unknown> = {}): EntityRecord => ({ kind: 'gate', id, version, data: { id, name: id, version, ...extra } });

const auditEntry = (overrides: Partial<Omit<AuditEntry, 'id'>> = {}): Omit<AuditEntry, 'id'> => ({
  time: 1000,
  actorEmail: 'a@example.com',
  actorKeyId: 'key_1',
  action: 'create',
  kind: 'gate',
  entityId: 'g1',
  version: 1,
  reviewId: null,
  details: null,
  ...overrides,
});

const keyRecord = (id: string, overrides: Partial<KeyRecord> = {}): KeyRecord => ({
  id,
  userEmail: 'a@example.com',
  description: `key ${id}`,
  hash: `hash-${id}`,
  scopes: [],
  active: true,
  createdTime: 100,
  lastRotatedTime: null,
  ...overrides,
});

describe.each(IMPLEMENTATIONS)('Store contract: %s', (_name, open) => {
  let store: Store;
  beforeEach(() => {
    store = open();
  });
  afterEach(() => store.close());

  describe('entities', () => {
    it('inserts, reads and lists in creation order, per kind', () => {
      store.entities.insert(gate('b'));
      store.entities.insert(gate('a'));
      store.entities.insert({ kind: 'segment', id: 'a', version: 1, data: { id: 'a' } });
      expect(store.entities.get('gate', 'b')).toEqual(gate('b'));
      expect(store.entities.get('gate', 'missing')).toBeUndefined();
      expect(store.entities.list('gate').map((r) => r.id)).toEqual(['b', 'a']);
      expect(store.entities.list('segment').map((r) => r.id)).toEqual(['a']);
      expect(store.entities.list('layer')).toEqual([]);
    });

    it('refuses a duplicate (kind, id) with DuplicateKeyError and keeps the first', () => {
      store.entities.insert(gate('a', 1, { name: 'first' }));
      expect(() => store.entities.insert(gate('a', 1, { name: 'second' }))).toThrow(DuplicateKeyError);
      expect(store.entities.get('gate', 'a')?.data['name']).toBe('first');
    });

    it('pages with the total of the kind', () => {
      for (const id of ['g1', 'g2', 'g3', 'g4', 'g5']) store.entities.insert(gate(id));
      const page = store.entities.page('gate', 1, 2);
      expect(page.total).toBe(5);
      expect(page.items.map((r) => r.id)).toEqual(['g2', 'g3']);
      expect(store.entities.page('gate', 10, 2)).toEqual({ items: [], total: 5 });
    });

    it('updates in place, keeping the creation order', () => {
      store.entities.insert(gate('a'));
      store.entities.insert(gate('b'));
      store.entities.update(gate('a', 2, { description: 'changed' }));
      expect(store.entities.get('gate', 'a')).toEqual(gate('a', 2, { description: 'changed' }));
      expect(store.entities.list('gate').map((r) => r.id)).toEqual(['a', 'b']);
    });

    it('answers the stored version alone, undefined when absent', () => {
      store.entities.insert(gate('a'));
      store.entities.update(gate('a', 3));
      expect(store.entities.version('gate', 'a')).toBe(3);
      expect(store.entities.version('gate', 'missing')).toBeUndefined();
      expect(store.entities.version('segment', 'a')).toBeUndefined();
    });

    it('ignores an update of a missing entity', () => {
      store.entities.update(gate('ghost', 2));
      expect(store.entities.get('gate', 'ghost')).toBeUndefined();
    });

    it('deletes an entity with its version history', () => {
      store.entities.insert(gate('a'));
      store.entities.appendVersion({ kind: 'gate', id: 'a', version: 1, time: 1, data: { v: 1 } });
      store.entities.delete('gate', 'a');
      expect(store.entities.get('gate', 'a')).toBeUndefined();
      expect(store.entities.versions('gate', 'a', 0, 10)).toEqual({ items: [], total: 0 });
      store.entities.insert(gate('a'));
      expect(store.entities.get('gate', 'a')?.version).toBe(1);
    });

    it('returns copies: mutating a result does not change the store', () => {
      store.entities.insert(gate('a', 1, { tags: ['x'] }));
      const read = store.entities.get('gate', 'a');
      (read?.data['tags'] as string[]).push('mutated');
      expect(store.entities.get('gate', 'a')?.data['tags']).toEqual(['x']);
    });

    it('keeps versions newest first, paged, with their time and data', () => {
      for (let v = 1; v <= 4; v++) store.entities.appendVersion({ kind: 'gate', id: 'a', version: v, time: v * 10, data: { v } });
      store.entities.appendVersion({ kind: 'gate', id: 'other', version: 1, time: 5, data: {} });
      const all = store.entities.versions('gate', 'a', 0, 10);
      expect(all.total).toBe(4);
      expect(all.items.map((v) => [v.version, v.time, v.data['v']])).toEqual([
        [4, 40, 4],
        [3, 30, 3],
        [2, 20, 2],
        [1, 10, 1],
      ]);
      expect(store.entities.versions('gate', 'a', 1, 2).items.map((v) => v.version)).toEqual([3, 2]);
    });

    it('refuses a duplicate version number with DuplicateKeyError', () => {
      store.entities.appendVersion({ kind: 'gate', id: 'a', version: 1, time: 1, data: {} });
      expect(() => store.entities.appendVersion({ kind: 'gate', id: 'a', version: 1, time: 2, data: {} })).toThrow(DuplicateKeyError);
    });
  });

  describe('audit log', () => {
    it('assigns increasing ids and lists newest first', () => {
      const first = store.audit.append(auditEntry({ entityId: 'g1' }));
      const second = store.audit.append(auditEntry({ entityId: 'g2', details: { bypass: true } }));
      expect(Number(second.id)).toBeGreaterThan(Number(first.id));
      expect(second).toEqual({ ...auditEntry({ entityId: 'g2', details: { bypass: true } }), id: second.id });
      const page = store.audit.list({ offset: 0, limit: 10 });
      expect(page.total).toBe(2);
      expect(page.items.map((e) => e.entityId)).toEqual(['g2', 'g1']);
      expect(page.items[0]?.details).toEqual({ bypass: true });
      expect(page.items[1]?.details).toBeNull();
    });

    it('filters by kind, entity and actor, with totals per filter and paging', () => {
      store.audit.append(auditEntry({ kind: 'gate', entityId: 'g1', actorEmail: 'a@example.com' }));
      store.audit.append(auditEntry({ kind: 'gate', entityId: 'g2', actorEmail: 'b@example.com' }));
      store.audit.append(auditEntry({ kind: 'segment', entityId: 'g1', actorEmail: 'a@example.com' }));
      store.audit.append(auditEntry({ kind: 'gate', entityId: 'g1', actorEmail: 'b@example.com', reviewId: 'r1' }));
      expect(store.audit.list({ kind: 'gate', offset: 0, limit: 10 }).total).toBe(3);
      expect(store.audit.list({ kind: 'gate', entityId: 'g1', offset: 0, limit: 10 }).items.map((e) => e.actorEmail)).toEqual(['b@example.com', 'a@example.com']);
      expect(store.audit.list({ actorEmail: 'a@example.com', offset: 0, limit: 10 }).items.map((e) => e.kind)).toEqual(['segment', 'gate']);
      const paged = store.audit.list({ offset: 1, limit: 2 });
      expect(paged.total).toBe(4);
      expect(paged.items.map((e) => e.entityId)).toEqual(['g1', 'g2']);
      expect(store.audit.list({ kind: 'gate', offset: 0, limit: 1 }).items[0]?.reviewId).toBe('r1');
    });
  });

  describe('users and keys', () => {
    beforeEach(() => {
      store.auth.upsertUser({ email: 'a@example.com', role: 'member', createdTime: 50 });
    });

    it('upserts users, changing the role and keeping the creation time', () => {
      expect(store.auth.getUser('a@example.com')).toEqual({ email: 'a@example.com', role: 'member', createdTime: 50 });
      store.auth.upsertUser({ email: 'a@example.com', role: 'admin', createdTime: 999 });
      expect(store.auth.getUser('a@example.com')).toEqual({ email: 'a@example.com', role: 'admin', createdTime: 50 });
      expect(store.auth.getUser('nobody@example.com')).toBeUndefined();
    });

    it('stores keys, finds them by hash, lists them by creation time and counts them', () => {
      store.auth.insertKey(keyRecord('k2', { createdTime: 200, scopes: ['omni_read_only'] }));
      store.auth.insertKey(keyRecord('k1', { createdTime: 100 }));
      expect(store.auth.countKeys()).toBe(2);
      expect(store.auth.getKey('k2')).toEqual(keyRecord('k2', { createdTime: 200, scopes: ['omni_read_only'] }));
      expect(store.auth.findKeyByHash('hash-k1')?.id).toBe('k1');
      expect(store.auth.findKeyByHash('nope')).toBeUndefined();
      expect(store.auth.listKeys().map((k) => k.id)).toEqual(['k1', 'k2']);
    });

    it('refuses a second key with the same hash', () => {
      store.auth.insertKey(keyRecord('k1'));
      expect(() => store.auth.insertKey(keyRecord('k2', { hash: 'hash-k1' }))).toThrow(DuplicateKeyError);
      expect(store.auth.countKeys()).toBe(1);
    });

    it('updates and deletes keys', () => {
      store.auth.insertKey(keyRecord('k1'));
      store.auth.updateKey(keyRecord('k1', { hash: 'rotated', active: false, lastRotatedTime: 300, description: 'new' }));
      expect(store.auth.getKey('k1')).toEqual(keyRecord('k1', { hash: 'rotated', active: false, lastRotatedTime: 300, description: 'new' }));
      expect(store.auth.findKeyByHash('hash-k1')).toBeUndefined();
      store.auth.deleteKey('k1');
      expect(store.auth.getKey('k1')).toBeUndefined();
      expect(store.auth.countKeys()).toBe(0);
    });
  });

  describe('roles and settings', () => {
    it('upserts roles (keeping the builtin flag) and lists built-in roles first, then by name', () => {
      store.roles.upsert({ name: 'zeta', permissions: ['read'], builtin: false });
      store.roles.upsert({ name: 'admin', permissions: ['read', 'write'], builtin: true });
      store.roles.upsert({ name: 'alpha', permissions: [], builtin: false });
      store.roles.upsert({ name: 'admin', permissions: ['read'], builtin: false });
      expect(store.roles.get('admin')).toEqual({ name: 'admin', permissions: ['read'], builtin: true });
      expect(store.roles.list().map((r) => r.name)).toEqual(['admin', 'alpha', 'zeta']);
      expect(store.roles.get('missing')).toBeUndefined();
    });

    it('sets and overwrites settings', () => {
      expect(store.settings.get('reviews')).toBeUndefined();
      store.settings.set('reviews', { is_config_review_required: true });
      store.settings.set('reviews', { is_config_review_required: false, extra: [1] });
      expect(store.settings.get('reviews')).toEqual({ is_config_review_required: false, extra: [1] });
    });
  });

  describe('transactions', () => {
    const writeAll = (id: string): void => {
      store.entities.insert(gate(id));
      store.entities.appendVersion({ kind: 'gate', id, version: 1, time: 1, data: {} });
      store.audit.append(auditEntry({ entityId: id }));
      store.settings.set('last', { id });
    };

    it('keeps everything a transaction wrote and returns its result', () => {
      expect(store.transaction(() => (writeAll('a'), 'done'))).toBe('done');
      expect(store.entities.get('gate', 'a')).toBeDefined();
      expect(store.entities.versions('gate', 'a', 0, 10).total).toBe(1);
      expect(store.audit.list({ offset: 0, limit: 10 }).total).toBe(1);
    });

    it('rolls back every write when the function throws, and rethrows', () => {
      store.transaction(() => writeAll('kept'));
      const failure = new Error('boom');
      expect(() =>
        store.transaction(() => {
          writeAll('lost');
          store.entities.update(gate('kept', 2));
          throw failure;
        }),
      ).toThrow(failure);
      expect(store.entities.get('gate', 'lost')).toBeUndefined();
      expect(store.entities.get('gate', 'kept')?.version).toBe(1);
      expect(store.entities.versions('gate', 'lost', 0, 10).total).toBe(0);
      expect(store.audit.list({ offset: 0, limit: 10 }).items.map((e) => e.entityId)).toEqual(['kept']);
      expect(store.settings.get('last')).toEqual({ id: 'kept' });
    });

    it('nests: a failed inner transaction is undone while the outer one goes on', () => {
      store.transaction(() => {
        writeAll('outer');
        expect(() =>
          store.transaction(() => {
            writeAll('inner');
            throw new Error('inner fails');
          }),
        ).toThrow('inner fails');
        expect(store.entities.get('gate', 'inner')).toBeUndefined();
        store.entities.insert(gate('after'));
      });
      expect(store.entities.list('gate').map((r) => r.id)).toEqual(['outer', 'after']);
      expect(store.audit.list({ offset: 0, limit: 10 }).items.map((e) => e.entityId)).toEqual(['outer']);
    });

    it('nests: when the outer transaction throws, the committed inner one is undone too', () => {
      expect(() =>
        store.transaction(() => {
          store.transaction(() => writeAll('inner'));
          writeAll('outer');
          throw new Error('outer fails');
        }),
      ).toThrow('outer fails');
      expect(store.entities.list('gate')).toEqual([]);
      expect(store.audit.list({ offset: 0, limit: 10 }).total).toBe(0);
      expect(store.settings.get('last')).toBeUndefined();
    });
  });
});

describe('SQLite file database', () => {
  /** First version after the shipped migrations, so the probes below never collide with a real one. */
  const NEXT = Math.max(...MIGRATIONS.map((m) => m.version)) + 1;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'flagops-sqlite-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const migrationRows = (path: string): { version: number; name: string }[] => {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number; name: string }[];
    } finally {
      db.close();
    }
  };

  it('creates missing folders, uses WAL and records every migration', () => {
    const path = join(dir, 'nested', 'deeper', 'console.db');
    openSqliteStore(path).close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
    expect(migrationRows(path)).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  });

  it('pages a kind in insertion order through an index, without sorting the kind for each page', () => {
    const path = join(dir, 'console.db');
    const store = openSqliteStore(path);
    store.transaction(() => {
      for (const id of ['c', 'a', 'b']) store.entities.insert(gate(id));
    });
    expect(store.entities.page('gate', 1, 2).items.map((r) => r.id)).toEqual(['a', 'b']);
    store.close();
    const db = new Database(path, { readonly: true });
    try {
      const plan = db.prepare('EXPLAIN QUERY PLAN SELECT kind, id, version, data FROM entities WHERE kind = ? ORDER BY seq LIMIT ? OFFSET ?').all('gate', 10, 0) as { detail: string }[];
      const details = plan.map((row) => row.detail).join('\n');
      expect(details).toContain('entities_kind_seq');
      expect(details).not.toContain('TEMP B-TREE');
    } finally {
      db.close();
    }
  });

  it('reopens an existing database without re-applying migrations and keeps the data', () => {
    const path = join(dir, 'console.db');
    const first = openSqliteStore(path);
    first.transaction(() => first.entities.insert(gate('persisted')));
    first.close();
    const second = openSqliteStore(path);
    try {
      expect(second.entities.get('gate', 'persisted')).toEqual(gate('persisted'));
    } finally {
      second.close();
    }
    expect(migrationRows(path)).toHaveLength(MIGRATIONS.length);
  });

  it('applies only migrations that are new, in version order', () => {
    const path = join(dir, 'console.db');
    openSqliteStore(path).close();
    const later = [
      { version: NEXT + 1, name: 'third', sql: 'ALTER TABLE probe ADD COLUMN extra TEXT' },
      { version: NEXT, name: 'second', sql: 'CREATE TABLE probe (x INTEGER)' },
    ];
    openSqliteStore(path, [...MIGRATIONS, ...later]).close();
    openSqliteStore(path, [...MIGRATIONS, ...later]).close();
    expect(migrationRows(path).map((r) => r.name)).toEqual([...MIGRATIONS.map((m) => m.name), 'second', 'third']);
  });

  it('checkpoints the WAL into the database file on a timer, and at SQLite\'s threshold only as a safety net', async () => {
    const path = join(dir, 'console.db');
    const store = openSqliteStore(path, MIGRATIONS, { checkpointIntervalMs: 20 });
    try {
      const sizeBefore = statSync(path).size;
      const big = 'x'.repeat(4000);
      store.transaction(() => {
        for (let i = 0; i < 100; i++) store.entities.insert(gate(`g${i}`, 1, { big }));
      });
      const deadline = Date.now() + 5000;
      while (statSync(path).size < sizeBefore + 300_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(statSync(path).size).toBeGreaterThan(sizeBefore + 300_000);
    } finally {
      store.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM entities').get()).toEqual({ n: 100 });
    } finally {
      db.close();
    }
  });

  it('leaves a failing migration unrecorded and its changes undone', () => {
    const path = join(dir, 'console.db');
    const broken = [...MIGRATIONS, { version: NEXT, name: 'broken', sql: 'CREATE TABLE half (x INTEGER); INSERT INTO no_such_table VALUES (1);' }];
    expect(() => openSqliteStore(path, broken)).toThrow(/no_such_table/);
    expect(migrationRows(path).map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
    } finally {
      db.close();
    }
  });
});
