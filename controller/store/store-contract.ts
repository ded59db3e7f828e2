/**
 * One contract suite for every Store adapter (SQLite, PostgreSQL, the in-memory fake): they must
 * behave the same, so tests that use the fake prove something about the real stores. Each adapter's
 * `*.contract.test.ts` runs it with a function that opens a fresh, empty store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateKeyError, UNDECIDED_REVIEW, type AuditEntry, type ChangeMarks, type EntityChange, type EntityRecord, type KeyRecord, type ReviewRecord, type Store } from './ports.js';

export interface OpenedStore {
  store: Store;
  /** Closes the store if the test did not, and removes what it was stored in. */
  cleanup: () => Promise<void>;
}

export const gate = (id: string, version = 1, extra: Record<string, unknown> = {}): EntityRecord => ({ kind: 'gate', id, version, data: { id, name: id, version, ...extra } });

export const auditEntry = (overrides: Partial<Omit<AuditEntry, 'id'>> = {}): Omit<AuditEntry, 'id'> => ({
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

export const keyRecord = (id: string, overrides: Partial<KeyRecord> = {}): KeyRecord => ({
  id,
  userEmail: 'a@example.com',
  description: `key ${id}`,
  hash: `hash-${id}`,
  scopes: [],
  active: true,
  createdTime: 100,
  lastRotatedTime: null,
  type: 'CONSOLE',
  environments: [],
  primaryTargetApp: null,
  secondaryTargetApps: [],
  ...overrides,
});

export function reviewRecord(id: string, overrides: Partial<ReviewRecord> = {}): ReviewRecord {
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

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The marks as of now: refreshed first where the store shares its database with other processes. */
export async function currentMarks(store: Store): Promise<ChangeMarks | undefined> {
  await store.refreshMarks?.();
  return store.marks?.();
}

export function describeStoreContract(name: string, open: () => Promise<OpenedStore>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let opened: OpenedStore;
    beforeEach(async () => {
      opened = await open();
      store = opened.store;
    });
    afterEach(async () => {
      await opened.cleanup();
    });

    describe('entities', () => {
      it('inserts, reads and lists in creation order, per kind', async () => {
        await store.entities.insert(gate('b'));
        await store.entities.insert(gate('a'));
        await store.entities.insert({ kind: 'segment', id: 'a', version: 1, data: { id: 'a' } });
        expect(await store.entities.get('gate', 'b')).toEqual(gate('b'));
        expect(await store.entities.get('gate', 'missing')).toBeUndefined();
        expect((await store.entities.list('gate')).map((r) => r.id)).toEqual(['b', 'a']);
        expect((await store.entities.list('segment')).map((r) => r.id)).toEqual(['a']);
        expect(await store.entities.list('layer')).toEqual([]);
      });

      it('refuses a duplicate (kind, id) with DuplicateKeyError and keeps the first', async () => {
        await store.entities.insert(gate('a', 1, { name: 'first' }));
        await expect(store.entities.insert(gate('a', 1, { name: 'second' }))).rejects.toThrow(DuplicateKeyError);
        expect((await store.entities.get('gate', 'a'))?.data['name']).toBe('first');
      });

      it('pages with the total of the kind', async () => {
        for (const id of ['g1', 'g2', 'g3', 'g4', 'g5']) await store.entities.insert(gate(id));
        await store.entities.insert({ kind: 'segment', id: 's1', version: 1, data: {} });
        const page = await store.entities.page('gate', 1, 2);
        expect(page.total).toBe(5);
        expect(page.items.map((r) => r.id)).toEqual(['g2', 'g3']);
        expect(page.items[0]).toEqual(gate('g2'));
        expect(await store.entities.page('gate', 10, 2)).toEqual({ items: [], total: 5 });
        expect(await store.entities.page('layer', 0, 2)).toEqual({ items: [], total: 0 });
      });

      it('updates in place, keeping the creation order', async () => {
        await store.entities.insert(gate('a'));
        await store.entities.insert(gate('b'));
        await store.entities.update(gate('a', 2, { description: 'changed' }));
        expect(await store.entities.get('gate', 'a')).toEqual(gate('a', 2, { description: 'changed' }));
        expect((await store.entities.list('gate')).map((r) => r.id)).toEqual(['a', 'b']);
      });

      it('answers the stored version alone, undefined when absent', async () => {
        await store.entities.insert(gate('a'));
        await store.entities.update(gate('a', 3));
        expect(await store.entities.version('gate', 'a')).toBe(3);
        expect(await store.entities.version('gate', 'missing')).toBeUndefined();
        expect(await store.entities.version('segment', 'a')).toBeUndefined();
      });

      it('ignores an update of a missing entity', async () => {
        await store.entities.update(gate('ghost', 2));
        expect(await store.entities.get('gate', 'ghost')).toBeUndefined();
      });

      it('deletes an entity with its version history', async () => {
        await store.entities.insert(gate('a'));
        await store.entities.appendVersion({ kind: 'gate', id: 'a', version: 1, time: 1, data: { v: 1 } });
        await store.entities.delete('gate', 'a');
        expect(await store.entities.get('gate', 'a')).toBeUndefined();
        expect(await store.entities.versions('gate', 'a', 0, 10)).toEqual({ items: [], total: 0 });
        await store.entities.insert(gate('a'));
        expect((await store.entities.get('gate', 'a'))?.version).toBe(1);
      });

      it('returns copies: mutating a result does not change the store', async () => {
        await store.entities.insert(gate('a', 1, { tags: ['x'] }));
        const read = await store.entities.get('gate', 'a');
        (read?.data['tags'] as string[]).push('mutated');
        expect((await store.entities.get('gate', 'a'))?.data['tags']).toEqual(['x']);
      });

      it('keeps versions newest first, paged, with their time and data', async () => {
        for (let v = 1; v <= 4; v++) await store.entities.appendVersion({ kind: 'gate', id: 'a', version: v, time: v * 10, data: { v } });
        await store.entities.appendVersion({ kind: 'gate', id: 'other', version: 1, time: 5, data: {} });
        const all = await store.entities.versions('gate', 'a', 0, 10);
        expect(all.total).toBe(4);
        expect(all.items.map((v) => [v.version, v.time, v.data['v']])).toEqual([
          [4, 40, 4],
          [3, 30, 3],
          [2, 20, 2],
          [1, 10, 1],
        ]);
        expect(all.items[0]).toEqual({ kind: 'gate', id: 'a', version: 4, time: 40, data: { v: 4 } });
        expect((await store.entities.versions('gate', 'a', 1, 2)).items.map((v) => v.version)).toEqual([3, 2]);
        expect(await store.entities.versions('gate', 'a', 10, 2)).toEqual({ items: [], total: 4 });
      });

      it('keeps epoch-millisecond times exactly', async () => {
        const time = 1_790_000_000_123;
        await store.entities.appendVersion({ kind: 'gate', id: 'a', version: 1, time, data: {} });
        expect((await store.entities.versions('gate', 'a', 0, 1)).items[0]?.time).toBe(time);
      });

      it('refuses a duplicate version number with DuplicateKeyError', async () => {
        await store.entities.appendVersion({ kind: 'gate', id: 'a', version: 1, time: 1, data: {} });
        await expect(store.entities.appendVersion({ kind: 'gate', id: 'a', version: 1, time: 2, data: {} })).rejects.toThrow(DuplicateKeyError);
        expect((await store.entities.versions('gate', 'a', 0, 10)).items.map((v) => v.time)).toEqual([1]);
      });
    });

    describe('entity changes (entity, version snapshot and audit row in one call)', () => {
      const change = (record: EntityRecord, mode: EntityChange['mode'], overrides: Partial<Omit<AuditEntry, 'id'>> = {}): EntityChange => ({
        record,
        mode,
        version: { kind: record.kind, id: record.id, version: record.version, time: 1_790_000_000_000 + record.version, data: record.data },
        audit: auditEntry({ action: mode === 'insert' ? 'create' : 'update', entityId: record.id, version: record.version, ...overrides }),
      });
      /** What the separate calls write for the same change. */
      const writeSeparately = async (c: EntityChange): Promise<void> => {
        await store.entities[c.mode](c.record);
        await store.entities.appendVersion(c.version);
        await store.audit.append(c.audit);
      };
      const stored = async (kind: string, id: string) => ({
        entity: await store.entities.get(kind, id),
        versions: await store.entities.versions(kind, id, 0, 100),
        audit: (await store.audit.list({ kind, entityId: id, offset: 0, limit: 100 })).items.map(({ id: _, ...entry }) => entry),
      });
      const auditCount = async (): Promise<number> => (await store.audit.list({ offset: 0, limit: 1 })).total;

      it('writes the rows the separate calls write, the audit row with the next id', async () => {
        const details = { reason: 'bench', nested: { list: [1, 'two', null] } };
        const separate = (id: string, version: number, mode: EntityChange['mode']) =>
          change(gate(id, version, { rules: [{ id: 'r1' }] }), mode, { actorKeyId: null, reviewId: 'review-1', details });
        await writeSeparately(separate('a', 1, 'insert'));
        const before = (await store.audit.list({ offset: 0, limit: 1 })).items[0]!;
        await store.entities.save(separate('b', 1, 'insert'));
        await writeSeparately(separate('a', 2, 'update'));
        await store.entities.save(separate('b', 2, 'update'));
        const [a, b] = [await stored('gate', 'a'), await stored('gate', 'b')];
        expect(b.entity).toEqual({ ...a.entity, id: 'b', data: { ...a.entity!.data, id: 'b', name: 'b' } });
        expect(b.entity).toEqual(gate('b', 2, { rules: [{ id: 'r1' }] }));
        expect(b.versions.total).toBe(2);
        expect(b.versions.items).toEqual(a.versions.items.map((v) => ({ ...v, id: 'b', data: { ...v.data, id: 'b', name: 'b' } })));
        expect(b.audit).toEqual(a.audit.map((entry) => ({ ...entry, entityId: 'b' })));
        expect(b.audit[1]).toEqual({ ...auditEntry({ entityId: 'b', actorKeyId: null, reviewId: 'review-1', details }), action: 'create' });
        const ids = (await store.audit.list({ offset: 0, limit: 10 })).items.map((e) => Number(e.id));
        expect(ids).toEqual([...ids].sort((x, y) => y - x));
        expect(ids[2]).toBeGreaterThan(Number(before.id));
        expect((await store.entities.list('gate')).map((r) => r.id)).toEqual(['a', 'b']);
      });

      it('keeps a snapshot whose data differs from the record', async () => {
        const c = change(gate('a'), 'insert');
        await store.entities.save({ ...c, version: { ...c.version, data: { snapshot: true } } });
        expect((await store.entities.versions('gate', 'a', 0, 1)).items[0]?.data).toEqual({ snapshot: true });
        expect(await store.entities.get('gate', 'a')).toEqual(gate('a'));
      });

      it('an insert of an existing (kind, id) throws DuplicateKeyError and writes nothing of the three', async () => {
        await store.entities.save(change(gate('a', 1, { name: 'first' }), 'insert'));
        const before = await stored('gate', 'a');
        await expect(store.entities.save(change(gate('a', 2, { name: 'second' }), 'insert'))).rejects.toThrow(DuplicateKeyError);
        expect(await stored('gate', 'a')).toEqual(before);
        expect(await auditCount()).toBe(1);
      });

      it('a snapshot version that exists throws DuplicateKeyError and writes nothing of the three', async () => {
        await store.entities.save(change(gate('a', 1), 'insert'));
        await store.entities.appendVersion({ kind: 'gate', id: 'a', version: 2, time: 5, data: { taken: true } });
        const before = await stored('gate', 'a');
        await expect(store.entities.save(change(gate('a', 2, { description: 'changed' }), 'update'))).rejects.toThrow(DuplicateKeyError);
        expect(await stored('gate', 'a')).toEqual(before);
        await store.entities.appendVersion({ kind: 'gate', id: 'b', version: 1, time: 5, data: {} });
        await expect(store.entities.save(change(gate('b'), 'insert'))).rejects.toThrow(DuplicateKeyError);
        expect(await store.entities.get('gate', 'b')).toBeUndefined();
        expect(await auditCount()).toBe(1);
      });

      it('an update of an absent entity throws and writes nothing', async () => {
        await expect(store.entities.save(change(gate('ghost', 2), 'update'))).rejects.toThrow('gate ghost does not exist: nothing was written');
        expect(await stored('gate', 'ghost')).toEqual({ entity: undefined, versions: { items: [], total: 0 }, audit: [] });
      });

      it('refuses a snapshot of another record or an unknown mode, naming the field, and writes nothing', async () => {
        const c = change(gate('a', 2), 'insert');
        await expect(store.entities.save({ ...c, version: { ...c.version, version: 3 } })).rejects.toThrow('version.version (3) differs from record.version (2)');
        await expect(store.entities.save({ ...c, version: { ...c.version, id: 'b' } })).rejects.toThrow('version.id (b) differs from record.id (a)');
        await expect(store.entities.save({ ...c, mode: 'upsert' as EntityChange['mode'] })).rejects.toThrow(`mode must be 'insert' or 'update', not "upsert"`);
        expect(await stored('gate', 'a')).toEqual({ entity: undefined, versions: { items: [], total: 0 }, audit: [] });
      });

      it('inside a transaction that then throws, nothing is kept', async () => {
        await store.entities.save(change(gate('a', 1), 'insert'));
        const before = await stored('gate', 'a');
        await expect(
          store.transaction(async (tx) => {
            await tx.entities.save(change(gate('a', 2, { description: 'lost' }), 'update'));
            await tx.entities.save(change(gate('b', 1), 'insert'));
            expect((await tx.entities.get('gate', 'a'))?.version).toBe(2);
            throw new Error('undo');
          }),
        ).rejects.toThrow('undo');
        expect(await stored('gate', 'a')).toEqual(before);
        expect(await stored('gate', 'b')).toEqual({ entity: undefined, versions: { items: [], total: 0 }, audit: [] });
        expect(await auditCount()).toBe(1);
      });

      it('inside a transaction, an update of an entity it read is kept with its snapshot and audit row', async () => {
        await store.entities.save(change(gate('a', 1), 'insert'));
        const version = await store.transaction(async (tx) => {
          const read = await tx.entities.get('gate', 'a');
          await tx.entities.save(change(gate('a', read!.version + 1, { description: 'kept' }), 'update'));
          return read!.version + 1;
        });
        expect(version).toBe(2);
        const after = await stored('gate', 'a');
        expect(after.entity).toEqual(gate('a', 2, { description: 'kept' }));
        expect(after.versions.items.map((v) => v.version)).toEqual([2, 1]);
        expect(after.audit.map((entry) => entry.action)).toEqual(['update', 'create']);
      });

      it('inside a transaction, an update that writes nothing (absent entity, taken version) fails the transaction and keeps none of it', async () => {
        await store.entities.save(change(gate('a', 1), 'insert'));
        await store.entities.appendVersion({ kind: 'gate', id: 'a', version: 2, time: 5, data: { taken: true } });
        const before = await stored('gate', 'a');
        for (const write of [change(gate('ghost', 2), 'update'), change(gate('a', 2, { description: 'lost' }), 'update')]) {
          await expect(
            store.transaction(async (tx) => {
              await tx.entities.get('gate', write.record.id);
              await tx.entities.save(change(gate('b', 1), 'insert'));
              await tx.entities.save(write);
            }),
          ).rejects.toThrow();
        }
        expect(await stored('gate', 'a')).toEqual(before);
        expect(await stored('gate', 'b')).toEqual({ entity: undefined, versions: { items: [], total: 0 }, audit: [] });
        expect(await auditCount()).toBe(1);
      });

      it('inside a transaction, a DuplicateKeyError can be caught and the transaction goes on', async () => {
        await store.entities.save(change(gate('a', 1), 'insert'));
        await store.transaction(async (tx) => {
          await expect(tx.entities.save(change(gate('a', 1), 'insert'))).rejects.toThrow(DuplicateKeyError);
          await tx.entities.save(change(gate('a', 2), 'update'));
        });
        expect((await stored('gate', 'a')).versions.items.map((v) => v.version)).toEqual([2, 1]);
        expect(await auditCount()).toBe(2);
      });
    });

    describe('audit log', () => {
      it('assigns increasing string ids and lists newest first', async () => {
        const first = await store.audit.append(auditEntry({ entityId: 'g1' }));
        const second = await store.audit.append(auditEntry({ entityId: 'g2', details: { bypass: true } }));
        expect(typeof first.id).toBe('string');
        expect(Number(second.id)).toBeGreaterThan(Number(first.id));
        expect(second).toEqual({ ...auditEntry({ entityId: 'g2', details: { bypass: true } }), id: second.id });
        const page = await store.audit.list({ offset: 0, limit: 10 });
        expect(page.total).toBe(2);
        expect(page.items.map((e) => e.entityId)).toEqual(['g2', 'g1']);
        expect(page.items.map((e) => e.id)).toEqual([second.id, first.id]);
        expect(page.items[0]).toEqual(second);
        expect(page.items[1]?.details).toBeNull();
      });

      it('filters by kind, entity and actor, with totals per filter and paging', async () => {
        await store.audit.append(auditEntry({ kind: 'gate', entityId: 'g1', actorEmail: 'a@example.com' }));
        await store.audit.append(auditEntry({ kind: 'gate', entityId: 'g2', actorEmail: 'b@example.com' }));
        await store.audit.append(auditEntry({ kind: 'segment', entityId: 'g1', actorEmail: 'a@example.com' }));
        await store.audit.append(auditEntry({ kind: 'gate', entityId: 'g1', actorEmail: 'b@example.com', reviewId: 'r1' }));
        expect((await store.audit.list({ kind: 'gate', offset: 0, limit: 10 })).total).toBe(3);
        expect((await store.audit.list({ kind: 'gate', entityId: 'g1', offset: 0, limit: 10 })).items.map((e) => e.actorEmail)).toEqual(['b@example.com', 'a@example.com']);
        expect((await store.audit.list({ actorEmail: 'a@example.com', offset: 0, limit: 10 })).items.map((e) => e.kind)).toEqual(['segment', 'gate']);
        const paged = await store.audit.list({ offset: 1, limit: 2 });
        expect(paged.total).toBe(4);
        expect(paged.items.map((e) => e.entityId)).toEqual(['g1', 'g2']);
        expect((await store.audit.list({ kind: 'gate', offset: 0, limit: 1 })).items[0]?.reviewId).toBe('r1');
        expect(await store.audit.list({ kind: 'layer', offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
        expect(await store.audit.list({ offset: 10, limit: 10 })).toEqual({ items: [], total: 4 });
      });
    });

    describe('users and keys', () => {
      beforeEach(async () => {
        await store.auth.upsertUser({ email: 'a@example.com', role: 'member', createdTime: 50 });
      });

      it('upserts users, changing the role and keeping the creation time', async () => {
        expect(await store.auth.getUser('a@example.com')).toEqual({ email: 'a@example.com', role: 'member', createdTime: 50 });
        await store.auth.upsertUser({ email: 'a@example.com', role: 'admin', createdTime: 999 });
        expect(await store.auth.getUser('a@example.com')).toEqual({ email: 'a@example.com', role: 'admin', createdTime: 50 });
        expect(await store.auth.getUser('nobody@example.com')).toBeUndefined();
      });

      it('stores keys, finds them by hash, lists them by creation time then id, and counts them', async () => {
        await store.auth.insertKey(keyRecord('k2', { createdTime: 200, scopes: ['omni_read_only'] }));
        await store.auth.insertKey(keyRecord('k1', { createdTime: 100 }));
        await store.auth.insertKey(keyRecord('key_a0', { createdTime: 300 }));
        await store.auth.insertKey(keyRecord('key_0a', { createdTime: 300 }));
        expect(await store.auth.countKeys()).toBe(4);
        expect(await store.auth.getKey('k2')).toEqual(keyRecord('k2', { createdTime: 200, scopes: ['omni_read_only'] }));
        expect((await store.auth.findKeyByHash('hash-k1'))?.id).toBe('k1');
        expect(await store.auth.findKeyByHash('nope')).toBeUndefined();
        expect(await store.auth.getKey('nope')).toBeUndefined();
        expect((await store.auth.listKeys()).map((k) => k.id)).toEqual(['k1', 'k2', 'key_0a', 'key_a0']);
      });

      it('refuses a second key with the same id or the same hash with DuplicateKeyError', async () => {
        await store.auth.insertKey(keyRecord('k1'));
        await expect(store.auth.insertKey(keyRecord('k2', { hash: 'hash-k1' }))).rejects.toThrow(DuplicateKeyError);
        await expect(store.auth.insertKey(keyRecord('k1', { hash: 'other' }))).rejects.toThrow(DuplicateKeyError);
        expect(await store.auth.countKeys()).toBe(1);
        expect((await store.auth.getKey('k1'))?.hash).toBe('hash-k1');
      });

      it('updates and deletes keys', async () => {
        await store.auth.insertKey(keyRecord('k1'));
        await store.auth.updateKey(keyRecord('k1', { hash: 'rotated', active: false, lastRotatedTime: 300, description: 'new' }));
        expect(await store.auth.getKey('k1')).toEqual(keyRecord('k1', { hash: 'rotated', active: false, lastRotatedTime: 300, description: 'new' }));
        expect(await store.auth.findKeyByHash('hash-k1')).toBeUndefined();
        await store.auth.deleteKey('k1');
        expect(await store.auth.getKey('k1')).toBeUndefined();
        expect(await store.auth.countKeys()).toBe(0);
      });

      it('keeps the type, environments and target apps of a key, in order, and updates them', async () => {
        const sdk = { type: 'SERVER', environments: ['staging', 'production'], primaryTargetApp: 'web', secondaryTargetApps: ['ios', 'android'] } as const;
        await store.auth.insertKey(keyRecord('k1', { ...sdk, environments: [...sdk.environments], secondaryTargetApps: [...sdk.secondaryTargetApps] }));
        await store.auth.insertKey(keyRecord('k2'));
        expect(await store.auth.getKey('k1')).toEqual(keyRecord('k1', { ...sdk, environments: ['staging', 'production'], secondaryTargetApps: ['ios', 'android'] }));
        expect((await store.auth.findKeyByHash('hash-k1'))?.type).toBe('SERVER');
        expect((await store.auth.listKeys()).map((k) => [k.id, k.type, k.environments, k.primaryTargetApp, k.secondaryTargetApps])).toEqual([
          ['k1', 'SERVER', ['staging', 'production'], 'web', ['ios', 'android']],
          ['k2', 'CONSOLE', [], null, []],
        ]);
        await store.auth.updateKey(keyRecord('k1', { type: 'SERVER', environments: ['development'], primaryTargetApp: null, secondaryTargetApps: [] }));
        expect(await store.auth.getKey('k1')).toEqual(keyRecord('k1', { type: 'SERVER', environments: ['development'] }));
        await store.auth.updateKey(keyRecord('k2', { type: 'CLIENT', primaryTargetApp: 'web' }));
        expect(await store.auth.getKey('k2')).toMatchObject({ type: 'CLIENT', primaryTargetApp: 'web' });
      });
    });

    describe('roles and settings', () => {
      it('upserts roles (keeping the builtin flag) and lists built-in roles first, then by name', async () => {
        await store.roles.upsert({ name: 'zeta', permissions: ['read'], builtin: false });
        await store.roles.upsert({ name: 'admin', permissions: ['read', 'write'], builtin: true });
        await store.roles.upsert({ name: 'alpha', permissions: [], builtin: false });
        await store.roles.upsert({ name: 'admin', permissions: ['read'], builtin: false });
        expect(await store.roles.get('admin')).toEqual({ name: 'admin', permissions: ['read'], builtin: true });
        expect((await store.roles.list()).map((r) => r.name)).toEqual(['admin', 'alpha', 'zeta']);
        expect(await store.roles.get('missing')).toBeUndefined();
      });

      it('deletes a role; deleting a missing one is a no-op', async () => {
        await store.roles.upsert({ name: 'alpha', permissions: ['read'], builtin: false });
        await store.roles.upsert({ name: 'zeta', permissions: [], builtin: false });
        await store.roles.delete('alpha');
        await store.roles.delete('missing');
        expect((await store.roles.list()).map((r) => r.name)).toEqual(['zeta']);
      });

      it('counts the users holding a role, with or without keys', async () => {
        await store.auth.upsertUser({ email: 'a@example.com', role: 'member', createdTime: 1 });
        await store.auth.upsertUser({ email: 'b@example.com', role: 'member', createdTime: 2 });
        await store.auth.upsertUser({ email: 'c@example.com', role: 'admin', createdTime: 3 });
        expect(await store.auth.countUsersWithRole('member')).toBe(2);
        expect(await store.auth.countUsersWithRole('admin')).toBe(1);
        expect(await store.auth.countUsersWithRole('read_only')).toBe(0);
        await store.auth.upsertUser({ email: 'b@example.com', role: 'admin', createdTime: 2 });
        expect(await store.auth.countUsersWithRole('member')).toBe(1);
      });

      it('sets and overwrites settings', async () => {
        expect(await store.settings.get('reviews')).toBeUndefined();
        await store.settings.set('reviews', { is_config_review_required: true });
        await store.settings.set('reviews', { is_config_review_required: false, extra: [1] });
        expect(await store.settings.get('reviews')).toEqual({ is_config_review_required: false, extra: [1] });
      });
    });

    describe('reviews', () => {
      it('inserts and reads a review with every field intact', async () => {
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
        await store.reviews.insert(review);
        expect(await store.reviews.get('r1')).toEqual(review);
        expect(await store.reviews.get('missing')).toBeUndefined();
      });

      it('refuses a duplicate id with DuplicateKeyError and keeps the first', async () => {
        await store.reviews.insert(reviewRecord('r1', { description: 'first' }));
        await expect(store.reviews.insert(reviewRecord('r1', { description: 'second' }))).rejects.toThrow(DuplicateKeyError);
        expect((await store.reviews.get('r1'))?.description).toBe('first');
      });

      it('updates a review, status included, and ignores an update of a missing one', async () => {
        await store.reviews.insert(reviewRecord('r1'));
        await store.reviews.update(reviewRecord('r1', { status: 'approved', approvedBy: 'b@example.com' }));
        await store.reviews.update(reviewRecord('nope', { status: 'approved' }));
        expect(await store.reviews.get('r1')).toMatchObject({ status: 'approved', approvedBy: 'b@example.com' });
        expect(await store.reviews.get('nope')).toBeUndefined();
        expect((await store.reviews.withStatus('approved')).map((r) => r.id)).toEqual(['r1']);
        expect(await store.reviews.withStatus('pending')).toEqual([]);
      });

      it('lists newest first, filtered by kind, entity and statuses, with totals and paging', async () => {
        await store.reviews.insert(reviewRecord('r1'));
        await store.reviews.insert(reviewRecord('r2', { entityId: 'g2', status: 'approved' }));
        await store.reviews.insert(reviewRecord('r3', { kind: 'segment', entityId: 'g1', status: 'committed' }));
        await store.reviews.insert(reviewRecord('r4', { status: 'approved' }));
        const ids = async (q: Parameters<Store['reviews']['list']>[0]) => (await store.reviews.list(q)).items.map((r) => r.id);
        expect(await ids({ offset: 0, limit: 10 })).toEqual(['r4', 'r3', 'r2', 'r1']);
        expect(await ids({ kind: 'gate', offset: 0, limit: 10 })).toEqual(['r4', 'r2', 'r1']);
        expect(await ids({ kind: 'gate', entityId: 'g1', offset: 0, limit: 10 })).toEqual(['r4', 'r1']);
        expect(await ids({ statuses: ['approved', 'committed'], offset: 0, limit: 10 })).toEqual(['r4', 'r3', 'r2']);
        expect(await store.reviews.list({ statuses: [], offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
        const page = await store.reviews.list({ offset: 1, limit: 2 });
        expect(page.total).toBe(4);
        expect(page.items.map((r) => r.id)).toEqual(['r3', 'r2']);
        expect(page.items[1]).toEqual(reviewRecord('r2', { entityId: 'g2', status: 'approved' }));
        expect((await store.reviews.list({ kind: 'gate', statuses: ['approved'], offset: 0, limit: 1 })).total).toBe(2);
        expect(await store.reviews.list({ offset: 10, limit: 10 })).toEqual({ items: [], total: 4 });
      });

      it('lists a status oldest first', async () => {
        for (const id of ['r1', 'r2', 'r3']) await store.reviews.insert(reviewRecord(id, { status: 'pending_webhook_validation' }));
        await store.reviews.insert(reviewRecord('r4'));
        expect((await store.reviews.withStatus('pending_webhook_validation')).map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
      });

      it('returns results that cannot change the store: fields set on one are its own, submitted parts are copies or frozen', async () => {
        await store.reviews.insert(reviewRecord('r1'));
        const read = (await store.reviews.get('r1'))!;
        read.status = 'committed';
        try {
          (read.after as Record<string, unknown>)['isEnabled'] = true;
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError); // frozen: shared by reads (SQLite's cache of submitted parts)
        }
        expect(await store.reviews.get('r1')).toEqual(reviewRecord('r1'));
      });

      it('an update writes the decision fields and keeps what was submitted', async () => {
        await store.reviews.insert(reviewRecord('r1'));
        await store.reviews.update({ ...reviewRecord('r1'), status: 'approved', approvedBy: 'carol@example.com', lastModifiedTime: 99 });
        expect(await store.reviews.get('r1')).toEqual({ ...reviewRecord('r1'), status: 'approved', approvedBy: 'carol@example.com', lastModifiedTime: 99 });
        expect((await store.reviews.withStatus('approved')).map((r) => r.id)).toEqual(['r1']);
      });
    });

    describe('transactions', () => {
      const writeAll = async (repos: Pick<Store, 'entities' | 'audit' | 'settings' | 'reviews'>, id: string): Promise<void> => {
        await repos.entities.insert(gate(id));
        await repos.entities.appendVersion({ kind: 'gate', id, version: 1, time: 1, data: {} });
        await repos.audit.append(auditEntry({ entityId: id }));
        await repos.settings.set('last', { id });
        await repos.reviews.insert(reviewRecord(`review-${id}`));
      };

      it('keeps everything a transaction wrote and returns its result', async () => {
        expect(await store.transaction(async (tx) => (await writeAll(tx, 'a'), 'done'))).toBe('done');
        expect(await store.entities.get('gate', 'a')).toBeDefined();
        expect((await store.entities.versions('gate', 'a', 0, 10)).total).toBe(1);
        expect((await store.audit.list({ offset: 0, limit: 10 })).total).toBe(1);
        expect(await store.settings.get('last')).toEqual({ id: 'a' });
        expect((await store.reviews.get('review-a'))?.status).toBe('pending');
      });

      it('runs the transactions of one serializeOn key one after another, others alongside', async () => {
        await store.entities.insert(gate('counter', 1, { count: 0 }));
        let inside = 0;
        let most = 0;
        const bump = (key: string) =>
          store.transaction(
            async (tx) => {
              most = Math.max(most, ++inside);
              const read = (await tx.entities.get('gate', 'counter'))!;
              await delay(5);
              await tx.entities.update({ ...read, data: { ...read.data, count: Number(read.data['count']) + 1 } });
              inside--;
            },
            { serializeOn: key },
          );
        await Promise.all([bump('gate:counter'), bump('gate:counter'), bump('gate:counter')]);
        expect(most).toBe(1);
        expect((await store.entities.get('gate', 'counter'))?.data['count']).toBe(3);
      });

      it('rolls back every write when the function throws, and rethrows', async () => {
        await store.transaction((tx) => writeAll(tx, 'kept'));
        const failure = new Error('boom');
        await expect(
          store.transaction(async (tx) => {
            await writeAll(tx, 'lost');
            await tx.entities.update(gate('kept', 2));
            await tx.reviews.update(reviewRecord('review-kept', { status: 'approved' }));
            throw failure;
          }),
        ).rejects.toBe(failure);
        expect(await store.entities.get('gate', 'lost')).toBeUndefined();
        expect((await store.entities.get('gate', 'kept'))?.version).toBe(1);
        expect((await store.entities.versions('gate', 'lost', 0, 10)).total).toBe(0);
        expect((await store.audit.list({ offset: 0, limit: 10 })).items.map((e) => e.entityId)).toEqual(['kept']);
        expect(await store.settings.get('last')).toEqual({ id: 'kept' });
        expect(await store.reviews.get('review-lost')).toBeUndefined();
        expect((await store.reviews.get('review-kept'))?.status).toBe('pending');
      });

      it('runs calls issued together inside a transaction (Promise.all)', async () => {
        await store.entities.insert(gate('a'));
        const [read, , list] = await store.transaction((tx) =>
          Promise.all([tx.entities.get('gate', 'a'), tx.entities.insert(gate('b')), tx.entities.list('gate'), tx.audit.append(auditEntry()), tx.reviews.insert(reviewRecord('r1'))]),
        );
        expect(read).toEqual(gate('a'));
        expect(list.map((r) => r.id)).toEqual(['a', 'b']);
        expect((await store.entities.list('gate')).map((r) => r.id)).toEqual(['a', 'b']);
        expect((await store.audit.list({ offset: 0, limit: 10 })).total).toBe(1);
      });

      it('a DuplicateKeyError inside a transaction can be caught, and the transaction goes on', async () => {
        await store.entities.insert(gate('a'));
        await store.transaction(async (tx) => {
          await expect(tx.entities.insert(gate('a'))).rejects.toThrow(DuplicateKeyError);
          await tx.entities.insert(gate('b'));
        });
        expect((await store.entities.list('gate')).map((r) => r.id)).toEqual(['a', 'b']);
      });

      it('calls outside a transaction never see its uncommitted writes', async () => {
        let outside: Promise<EntityRecord | undefined> | undefined;
        await expect(
          store.transaction(async (tx) => {
            await tx.entities.insert(gate('uncommitted'));
            outside = store.entities.get('gate', 'uncommitted');
            // An adapter may answer at once (from the committed state) or hold the call until the
            // transaction ends; either way not with the uncommitted row.
            const early = await Promise.race([outside.then((record) => ({ record })), delay(100).then(() => 'waiting' as const)]);
            if (early !== 'waiting') expect(early.record).toBeUndefined();
            throw new Error('undo');
          }),
        ).rejects.toThrow('undo');
        expect(await outside).toBeUndefined();
        expect(await store.entities.get('gate', 'uncommitted')).toBeUndefined();
      });

      it('two concurrent transactions on one entity serialize: the second reads what the first committed', async () => {
        await store.entities.insert(gate('a', 1));
        const bump = () =>
          store.transaction(async (tx) => {
            const current = (await tx.entities.get('gate', 'a'))!;
            await delay(30);
            await tx.entities.update(gate('a', current.version + 1));
            return current.version;
          });
        const seen = await Promise.all([bump(), bump()]);
        expect(seen.sort()).toEqual([1, 2]);
        expect(await store.entities.version('gate', 'a')).toBe(3);
      });

      it('a version check inside a transaction serializes the same way (If-Match)', async () => {
        await store.entities.insert(gate('a', 1));
        const write = (expected: number) =>
          store.transaction(async (tx) => {
            const version = await tx.entities.version('gate', 'a');
            if (version !== expected) return 'conflict';
            await delay(30);
            await tx.entities.update(gate('a', version + 1));
            return 'written';
          });
        const outcomes = await Promise.all([write(1), write(1)]);
        expect(outcomes.sort()).toEqual(['conflict', 'written']);
        expect(await store.entities.version('gate', 'a')).toBe(2);
      });

      it('one decision per review: concurrent transactions deciding one review serialize', async () => {
        await store.reviews.insert(reviewRecord('r1'));
        const approve = (by: string) =>
          store.transaction(async (tx) => {
            const review = (await tx.reviews.get('r1'))!;
            if (review.status !== 'pending') return false;
            await delay(30);
            await tx.reviews.update({ ...review, status: 'approved', approvedBy: by });
            return true;
          });
        const decided = await Promise.all([approve('b@example.com'), approve('c@example.com')]);
        expect(decided.filter(Boolean)).toHaveLength(1);
        const winner = decided[0] ? 'b@example.com' : 'c@example.com';
        expect(await store.reviews.get('r1')).toMatchObject({ status: 'approved', approvedBy: winner });
      });

      it('creating one id in two concurrent transactions: one wins, the other gets DuplicateKeyError', async () => {
        const create = (name: string) =>
          store.transaction(async (tx) => {
            await tx.entities.insert(gate('new', 1, { name }));
            await delay(30);
            return name;
          });
        const results = await Promise.allSettled([create('first'), create('second')]);
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r) => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateKeyError);
        expect((await store.entities.get('gate', 'new'))?.data['name']).toBe((won[0] as PromiseFulfilledResult<string>).value);
      });
    });

    describe('change marks', () => {
      it('a write moves the data mark; an entity write leaves the settings and auth marks alone', async (context) => {
        context.skip(!store.marks, 'this store has no change marks');
        await store.entities.insert(gate('a'));
        const before = await currentMarks(store);
        expect(before).toBeDefined();
        await store.entities.update(gate('a', 2));
        const after = await currentMarks(store);
        expect(after?.data).not.toBe(before?.data);
        expect(after?.settings).toBe(before?.settings);
        expect(after?.auth).toBe(before?.auth);
      });

      it('a settings write moves the settings mark (and data), not auth', async (context) => {
        context.skip(!store.marks, 'this store has no change marks');
        const before = await currentMarks(store);
        await store.settings.set('reviews', { is_config_review_required: true });
        const after = await currentMarks(store);
        expect(after?.settings).not.toBe(before?.settings);
        expect(after?.data).not.toBe(before?.data);
        expect(after?.auth).toBe(before?.auth);
      });

      it('user, key and role writes move the auth mark, not settings', async (context) => {
        context.skip(!store.marks, 'this store has no change marks');
        const writes: (() => Promise<void>)[] = [
          () => store.auth.upsertUser({ email: 'a@example.com', role: 'member', createdTime: 1 }),
          () => store.auth.insertKey(keyRecord('k1')),
          () => store.auth.updateKey(keyRecord('k1', { active: false })),
          () => store.auth.deleteKey('k1'),
          () => store.roles.upsert({ name: 'viewer', permissions: [], builtin: false }),
          () => store.roles.delete('viewer'),
        ];
        for (const write of writes) {
          const before = await currentMarks(store);
          await write();
          const after = await currentMarks(store);
          expect(after?.auth).not.toBe(before?.auth);
          expect(after?.settings).toBe(before?.settings);
        }
      });

      it('a committed transaction moves the marks; a rolled-back one leaves the settings as they were', async (context) => {
        context.skip(!store.marks, 'this store has no change marks');
        const before = await currentMarks(store);
        await store.transaction(async (tx) => {
          await tx.settings.set('reviews', { is_config_review_required: true });
          await tx.entities.insert(gate('a'));
        });
        const after = await currentMarks(store);
        expect(after?.data).not.toBe(before?.data);
        expect(after?.settings).not.toBe(before?.settings);
        await expect(
          store.transaction(async (tx) => {
            await tx.settings.set('reviews', { is_config_review_required: false });
            throw new Error('undo');
          }),
        ).rejects.toThrow('undo');
        expect(await store.settings.get('reviews')).toEqual({ is_config_review_required: true });
      });
    });
  });
}
