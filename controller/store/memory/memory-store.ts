import {
  assertEntityChange,
  DuplicateKeyError,
  type AuditEntry,
  type AuditQuery,
  type EntityRecord,
  type JsonObject,
  type KeyRecord,
  type Page,
  type ReviewRecord,
  type RoleRecord,
  type Store,
  type UserRecord,
  type VersionRecord,
} from '../ports.js';
import { asyncRepos, syncTransaction, TransactionGate, type SyncRepos } from '../sync-backed-store.js';

interface State {
  entities: Map<string, EntityRecord>;
  versions: Map<string, VersionRecord[]>;
  audit: AuditEntry[];
  auditSeq: number;
  users: Map<string, UserRecord>;
  keys: Map<string, KeyRecord>;
  roles: Map<string, RoleRecord>;
  settings: Map<string, JsonObject>;
  /** Reviews in insertion order. */
  reviews: Map<string, ReviewRecord>;
}

const key = (kind: string, id: string): string => `${kind}\u0000${id}`;
const clone = <T>(value: T): T => structuredClone(value);
/** Code-unit order, as SQLite's and PostgreSQL's (COLLATE "C") ORDER BY sort ids. */
const bytewise = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * In-memory fake of the store for unit tests. Values are cloned in and out so callers can't mutate
 * stored state by accident, and a transaction restores a snapshot when its function throws.
 */
export function createMemoryStore(): Store {
  let state: State = {
    entities: new Map(),
    versions: new Map(),
    audit: [],
    auditSeq: 0,
    users: new Map(),
    keys: new Map(),
    roles: new Map(),
    settings: new Map(),
    reviews: new Map(),
  };
  const page = <T>(items: T[], offset: number, limit: number): Page<T> => ({ items: items.slice(offset, offset + limit).map(clone), total: items.length });
  const ofKind = (kind: string): EntityRecord[] => [...state.entities.values()].filter((r) => r.kind === kind);

  const repos: SyncRepos = {
    entities: {
      get: (kind, id) => clone(state.entities.get(key(kind, id))),
      version: (kind, id) => state.entities.get(key(kind, id))?.version,
      list: (kind) => ofKind(kind).map(clone),
      page: (kind, offset, limit) => page(ofKind(kind), offset, limit),
      insert: (record) => {
        if (state.entities.has(key(record.kind, record.id))) throw new DuplicateKeyError(`${record.kind} ${record.id}`);
        state.entities.set(key(record.kind, record.id), clone(record));
      },
      update: (record) => {
        if (state.entities.has(key(record.kind, record.id))) state.entities.set(key(record.kind, record.id), clone(record));
      },
      delete: (kind, id) => {
        state.entities.delete(key(kind, id));
        state.versions.delete(key(kind, id));
      },
      appendVersion: (version) => {
        const list = state.versions.get(key(version.kind, version.id)) ?? [];
        if (list.some((v) => v.version === version.version)) throw new DuplicateKeyError(`version ${version.version} of ${version.kind} ${version.id}`);
        list.push(clone(version));
        state.versions.set(key(version.kind, version.id), list);
      },
      save: (change) => {
        assertEntityChange(change);
        const { record, version } = change;
        const existing = state.entities.has(key(record.kind, record.id));
        if (change.mode === 'insert' && existing) throw new DuplicateKeyError(`${record.kind} ${record.id}`);
        if (change.mode === 'update' && !existing) throw new Error(`${record.kind} ${record.id} does not exist: nothing was written`);
        if (state.versions.get(key(version.kind, version.id))?.some((v) => v.version === version.version)) {
          throw new DuplicateKeyError(`version ${version.version} of ${version.kind} ${version.id}`);
        }
        repos.entities[change.mode](record);
        repos.entities.appendVersion(version);
        repos.audit.append(change.audit);
      },
      versions: (kind, id, offset, limit) => {
        const list = [...(state.versions.get(key(kind, id)) ?? [])].sort((a, b) => b.version - a.version);
        return page(list, offset, limit);
      },
    },
    audit: {
      append: (entry) => {
        state.auditSeq += 1;
        const stored = { ...clone(entry), id: String(state.auditSeq) };
        state.audit.push(stored);
        return clone(stored);
      },
      list: (query: AuditQuery) => {
        const matching = state.audit
          .filter((e) => (query.kind === undefined || e.kind === query.kind) && (query.entityId === undefined || e.entityId === query.entityId) && (query.actorEmail === undefined || e.actorEmail === query.actorEmail))
          .reverse();
        return page(matching, query.offset, query.limit);
      },
    },
    auth: {
      getUser: (email) => clone(state.users.get(email)),
      upsertUser: (user) => {
        const existing = state.users.get(user.email);
        state.users.set(user.email, existing ? { ...existing, role: user.role } : clone(user));
      },
      getKey: (id) => clone(state.keys.get(id)),
      findKeyByHash: (hash) => clone([...state.keys.values()].find((k) => k.hash === hash)),
      listKeys: () => [...state.keys.values()].sort((a, b) => a.createdTime - b.createdTime || bytewise(a.id, b.id)).map(clone),
      insertKey: (k) => {
        if (state.keys.has(k.id) || [...state.keys.values()].some((o) => o.hash === k.hash)) throw new DuplicateKeyError(`key ${k.id}`);
        state.keys.set(k.id, clone(k));
      },
      updateKey: (k) => {
        if (state.keys.has(k.id)) state.keys.set(k.id, clone(k));
      },
      deleteKey: (id) => {
        state.keys.delete(id);
      },
      countKeys: () => state.keys.size,
      countUsersWithRole: (role) => [...state.users.values()].filter((u) => u.role === role).length,
    },
    roles: {
      get: (name) => clone(state.roles.get(name)),
      list: () => [...state.roles.values()].sort((a, b) => Number(b.builtin) - Number(a.builtin) || bytewise(a.name, b.name)).map(clone),
      upsert: (role) => {
        const existing = state.roles.get(role.name);
        state.roles.set(role.name, existing ? { ...existing, permissions: [...role.permissions] } : clone(role));
      },
      delete: (name) => {
        state.roles.delete(name);
      },
    },
    settings: {
      get: (name) => clone(state.settings.get(name)),
      set: (name, value) => {
        state.settings.set(name, clone(value));
      },
    },
    reviews: {
      get: (id) => clone(state.reviews.get(id)),
      insert: (review) => {
        if (state.reviews.has(review.id)) throw new DuplicateKeyError(`review ${review.id}`);
        state.reviews.set(review.id, clone(review));
      },
      update: (review) => {
        if (state.reviews.has(review.id)) state.reviews.set(review.id, clone(review));
      },
      list: (query) => {
        const matching = [...state.reviews.values()]
          .filter((r) => (query.kind === undefined || r.kind === query.kind) && (query.entityId === undefined || r.entityId === query.entityId) && (query.statuses === undefined || query.statuses.includes(r.status)))
          .reverse();
        return page(matching, query.offset, query.limit);
      },
      withStatus: (status) => [...state.reviews.values()].filter((r) => r.status === status).map(clone),
    },
  };
  const gate = new TransactionGate();
  let snapshot: State | undefined;
  return {
    dialect: 'memory',
    ...asyncRepos(repos, gate),
    transaction: syncTransaction(gate, asyncRepos(repos), {
      begin: () => {
        snapshot = clone(state);
      },
      commit: () => {
        snapshot = undefined;
      },
      rollback: () => {
        if (snapshot) state = snapshot;
        snapshot = undefined;
      },
    }),
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
