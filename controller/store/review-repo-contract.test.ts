/**
 * Contract of the ReviewRepo port: the SQLite adapter (in memory and on a file, reopened) and the
 * in-memory fake behave the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory/memory-store.js';
import { DuplicateKeyError, UNDECIDED_REVIEW, type ReviewRecord, type Store } from './ports.js';
import { openSqliteStore } from './sqlite/open-sqlite-store.js';

const tmp = mkdtempSync(join(tmpdir(), 'flagops-reviews-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let counter = 0;

const IMPLEMENTATIONS: [string, () => Store][] = [
  ['sqlite :memory:', () => openSqliteStore(':memory:')],
  ['sqlite file', () => openSqliteStore(join(tmp, `r-${++counter}`, 'console.db'))],
  ['memory fake', () => createMemoryStore()],
];

function reviewRecord(id: string, overrides: Partial<ReviewRecord> = {}): ReviewRecord {
  return {
    id,
    kind: 'gate',
    entityId: 'g1',
    status: 'pending',
    action: 'update',
    description: 'why',
    change: { isEnabled: false },
    submitter: 'a@example.com',
    createdTime: 100,
    lastModifiedTime: 100,
    baseVersion: 1,
    after: { id: 'g1', isEnabled: false },
    oldConfig: { id: 'g1', isEnabled: true, version: 1 },
    newConfig: { id: 'g1', isEnabled: false, version: 2 },
    changeTypes: ['rules'],
    ...UNDECIDED_REVIEW,
    ...overrides,
  };
}

describe.each(IMPLEMENTATIONS)('ReviewRepo contract: %s', (_name, open) => {
  let store: Store;
  beforeEach(() => {
    store = open();
  });
  afterEach(() => store.close());

  it('inserts and reads a review with every field intact', () => {
    const review = reviewRecord('r1', {
      validation: {
        committer: 'b@example.com',
        startedTime: 5,
        deadline: 10,
        type: 'rules',
        attempts: 2,
        deliveredTime: null,
        lastError: 'connection refused',
        validated: null,
        decidedTime: null,
        message: 'checking',
        debugLinks: [{ title: 'CI', url: 'http://ci.test/1' }],
      },
    });
    store.reviews.insert(review);
    expect(store.reviews.get('r1')).toEqual(review);
    expect(store.reviews.get('missing')).toBeUndefined();
  });

  it('refuses a duplicate id with DuplicateKeyError and keeps the first', () => {
    store.reviews.insert(reviewRecord('r1', { description: 'first' }));
    expect(() => store.reviews.insert(reviewRecord('r1', { description: 'second' }))).toThrow(DuplicateKeyError);
    expect(store.reviews.get('r1')?.description).toBe('first');
  });

  it('updates a review, status included, and ignores an update of a missing one', () => {
    store.reviews.insert(reviewRecord('r1'));
    store.reviews.update(reviewRecord('r1', { status: 'approved', approvedBy: 'b@example.com' }));
    store.reviews.update(reviewRecord('nope', { status: 'approved' }));
    expect(store.reviews.get('r1')).toMatchObject({ status: 'approved', approvedBy: 'b@example.com' });
    expect(store.reviews.get('nope')).toBeUndefined();
    expect(store.reviews.withStatus('approved').map((r) => r.id)).toEqual(['r1']);
    expect(store.reviews.withStatus('pending')).toEqual([]);
  });

  it('lists newest first, filtered by kind, entity and statuses, with totals and paging', () => {
    store.reviews.insert(reviewRecord('r1'));
    store.reviews.insert(reviewRecord('r2', { entityId: 'g2', status: 'approved' }));
    store.reviews.insert(reviewRecord('r3', { kind: 'segment', entityId: 'g1', status: 'committed' }));
    store.reviews.insert(reviewRecord('r4', { status: 'approved' }));
    const ids = (q: Parameters<Store['reviews']['list']>[0]) => store.reviews.list(q).items.map((r) => r.id);
    expect(ids({ offset: 0, limit: 10 })).toEqual(['r4', 'r3', 'r2', 'r1']);
    expect(ids({ kind: 'gate', offset: 0, limit: 10 })).toEqual(['r4', 'r2', 'r1']);
    expect(ids({ kind: 'gate', entityId: 'g1', offset: 0, limit: 10 })).toEqual(['r4', 'r1']);
    expect(ids({ statuses: ['approved', 'committed'], offset: 0, limit: 10 })).toEqual(['r4', 'r3', 'r2']);
    expect(ids({ statuses: [], offset: 0, limit: 10 })).toEqual([]);
    const page = store.reviews.list({ offset: 1, limit: 2 });
    expect(page.total).toBe(4);
    expect(page.items.map((r) => r.id)).toEqual(['r3', 'r2']);
    expect(store.reviews.list({ kind: 'gate', statuses: ['approved'], offset: 0, limit: 1 }).total).toBe(2);
  });

  it('lists a status oldest first', () => {
    for (const id of ['r1', 'r2', 'r3']) store.reviews.insert(reviewRecord(id, { status: 'pending_webhook_validation' }));
    store.reviews.insert(reviewRecord('r4'));
    expect(store.reviews.withStatus('pending_webhook_validation').map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
  });

  it('returns results that cannot change the store: fields set on one are its own, submitted parts are copies or frozen', () => {
    store.reviews.insert(reviewRecord('r1'));
    const read = store.reviews.get('r1')!;
    read.status = 'committed';
    try {
      (read.after as Record<string, unknown>)['isEnabled'] = true;
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError); // frozen: shared by reads (SQLite's cache of submitted parts)
    }
    expect(store.reviews.get('r1')).toEqual(reviewRecord('r1'));
  });

  it('an update writes the decision fields and keeps what was submitted, across reopen and older rows', () => {
    store.reviews.insert(reviewRecord('r1'));
    store.reviews.update({ ...reviewRecord('r1'), status: 'approved', approvedBy: 'carol@example.com', lastModifiedTime: 99 });
    expect(store.reviews.get('r1')).toEqual({ ...reviewRecord('r1'), status: 'approved', approvedBy: 'carol@example.com', lastModifiedTime: 99 });
    expect(store.reviews.withStatus('approved').map((r) => r.id)).toEqual(['r1']);
  });

  it('takes part in transactions: a throwing transaction leaves no review behind', () => {
    expect(() =>
      store.transaction(() => {
        store.reviews.insert(reviewRecord('r1'));
        store.reviews.update(reviewRecord('r1', { status: 'approved' }));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(store.reviews.get('r1')).toBeUndefined();
    store.transaction(() => store.reviews.insert(reviewRecord('r2')));
    expect(store.reviews.get('r2')?.status).toBe('pending');
  });
});

describe('SQLite reviews survive a reopen', () => {
  it('keeps reviews and their pending validation across close and open', () => {
    const path = join(tmp, 'reopen', 'console.db');
    const first = openSqliteStore(path);
    first.reviews.insert(reviewRecord('r1', { status: 'pending_webhook_validation' }));
    first.close();
    const second = openSqliteStore(path);
    try {
      expect(second.reviews.withStatus('pending_webhook_validation').map((r) => r.id)).toEqual(['r1']);
    } finally {
      second.close();
    }
  });
});

describe('SQLite reviews: what a decision writes and reads', () => {
  it('reads the decision fields fresh while the submitted part is kept parsed: another connection\'s decision shows', () => {
    const path = join(tmp, 'two-connections', 'console.db');
    const first = openSqliteStore(path);
    const second = openSqliteStore(path);
    try {
      first.reviews.insert(reviewRecord('r1'));
      expect(first.reviews.get('r1')?.status).toBe('pending');
      second.reviews.update({ ...reviewRecord('r1'), status: 'approved', approvedBy: 'carol@example.com' });
      expect(first.reviews.get('r1')).toEqual({ ...reviewRecord('r1'), status: 'approved', approvedBy: 'carol@example.com' });
    } finally {
      second.close();
      first.close();
    }
  });

  it('indexes only the reviews pending validation (migration 5), and resumes them through that index', () => {
    const path = join(tmp, 'pending-index', 'console.db');
    const store = openSqliteStore(path);
    store.reviews.insert(reviewRecord('r1', { status: 'pending_webhook_validation' }));
    store.reviews.insert(reviewRecord('r2'));
    store.close();
    const db = new Database(path, { readonly: true });
    try {
      const indexes = (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reviews' AND sql IS NOT NULL").all() as { name: string; sql: string }[]).map((i) => i.name);
      expect(indexes.sort()).toEqual(['reviews_entity', 'reviews_pending_validation']);
      expect(db.prepare('SELECT COUNT(*) FROM reviews INDEXED BY reviews_pending_validation WHERE status = \'pending_webhook_validation\'').pluck().get()).toBe(1);
      const plan = db.prepare("EXPLAIN QUERY PLAN SELECT id, data, state FROM reviews WHERE status = 'pending_webhook_validation' ORDER BY seq").all() as { detail: string }[];
      expect(plan.map((row) => row.detail).join('\n')).toContain('reviews_pending_validation');
    } finally {
      db.close();
    }
  });
});

describe('SQLite reviews written before the state column', () => {
  it('reads a row that holds everything in data, and a decision on it keeps what was submitted', () => {
    const path = join(tmp, 'legacy', 'console.db');
    openSqliteStore(path).close();
    // What migration 4 leaves of an older row: the whole record in data, state NULL.
    const legacy = reviewRecord('r1', { description: 'from before' });
    const db = new Database(path);
    db.prepare('INSERT INTO reviews (id, kind, entity_id, status, data) VALUES (?, ?, ?, ?, ?)').run('r1', 'gate', 'g1', 'pending', JSON.stringify(legacy));
    db.close();
    const store = openSqliteStore(path);
    try {
      expect(store.reviews.get('r1')).toEqual(legacy);
      store.reviews.update({ ...legacy, status: 'approved', approvedBy: 'carol@example.com' });
      expect(store.reviews.get('r1')).toEqual({ ...legacy, status: 'approved', approvedBy: 'carol@example.com' });
      expect(store.reviews.list({ statuses: ['approved'], offset: 0, limit: 10 }).items).toEqual([{ ...legacy, status: 'approved', approvedBy: 'carol@example.com' }]);
    } finally {
      store.close();
    }
  });
});
