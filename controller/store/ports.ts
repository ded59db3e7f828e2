/**
 * Store ports. Asynchronous, so a network database (PostgreSQL) fits behind them; the SQLite adapter
 * and the in-memory fake run synchronously inside and answer with settled promises. Every adapter
 * passes the same contract suite (`store-contract.ts`).
 */

export type JsonObject = Record<string, unknown>;

export interface EntityRecord {
  kind: string;
  id: string;
  version: number;
  /** The stored entity: writable fields plus server-managed ones (times, modifier, version...). */
  data: JsonObject;
}

export interface VersionRecord {
  kind: string;
  id: string;
  version: number;
  time: number;
  data: JsonObject;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/**
 * An entity written together with its version snapshot and its audit row: all three are written, or
 * none is. The snapshot is of the record itself (same kind, id and version).
 */
export interface EntityChange {
  record: EntityRecord;
  /** insert: a new (kind, id); update: an existing one. */
  mode: 'insert' | 'update';
  version: VersionRecord;
  audit: Omit<AuditEntry, 'id'>;
}

/** A list filter a store can run: a top-level string field equal to a value, or an array field holding any of some strings. */
export type EntityCondition = { field: string; equals: string } | { field: string; hasAny: string[] };

export interface EntityRepo {
  get(kind: string, id: string): Promise<EntityRecord | undefined>;
  /** The stored version alone (no data parsed), or undefined when absent: for staleness checks. */
  version(kind: string, id: string): Promise<number | undefined>;
  /** Every entity of a kind, in creation order. */
  list(kind: string): Promise<EntityRecord[]>;
  /**
   * `list`, frozen: callers only read it, and several may be handed the same list. A store may
   * answer from a cache that every write of the kind renews; stores without one leave this out.
   */
  listFrozen?(kind: string): Promise<readonly EntityRecord[]>;
  /** One page of a kind, in creation order. */
  page(kind: string, offset: number, limit: number): Promise<Page<EntityRecord>>;
  /**
   * One page of the entities of a kind that meet every condition, in creation order, filtered by the
   * database (the total counts every match). Absent where the store filters in memory.
   */
  pageWhere?(kind: string, conditions: readonly EntityCondition[], offset: number, limit: number): Promise<Page<EntityRecord>>;
  /** Throws DuplicateKeyError when (kind, id) exists. */
  insert(record: EntityRecord): Promise<void>;
  update(record: EntityRecord): Promise<void>;
  delete(kind: string, id: string): Promise<void>;
  appendVersion(version: VersionRecord): Promise<void>;
  /**
   * Writes a change as one call (on a network database, one round trip). Throws DuplicateKeyError,
   * writing nothing, when an insert's (kind, id) or the snapshot's version exists; throws, writing
   * nothing, when an update's entity is absent.
   */
  save(change: EntityChange): Promise<void>;
  /** Versions newest first. */
  versions(kind: string, id: string, offset: number, limit: number): Promise<Page<VersionRecord>>;
}

export interface AuditEntry {
  id: string;
  time: number;
  actorEmail: string;
  actorKeyId: string | null;
  action: string;
  kind: string;
  entityId: string;
  version: number | null;
  reviewId: string | null;
  details: JsonObject | null;
}

export interface AuditQuery {
  kind?: string;
  entityId?: string;
  actorEmail?: string;
  offset: number;
  limit: number;
}

export interface AuditRepo {
  /** Appends an entry; the store assigns `id` (monotonic) and returns it. */
  append(entry: Omit<AuditEntry, 'id'>): Promise<AuditEntry>;
  /** Newest first. */
  list(query: AuditQuery): Promise<Page<AuditEntry>>;
}

export interface UserRecord {
  email: string;
  role: string;
  createdTime: number;
}

export interface KeyRecord {
  id: string;
  userEmail: string;
  description: string;
  /** sha256 of the secret, hex. The secret itself is never stored. */
  hash: string;
  scopes: string[];
  active: boolean;
  createdTime: number;
  lastRotatedTime: number | null;
  /** CONSOLE (calls the Console API), SERVER or CLIENT (SDK keys). */
  type: 'CONSOLE' | 'SERVER' | 'CLIENT';
  /** Empty: every environment. */
  environments: string[];
  primaryTargetApp: string | null;
  secondaryTargetApps: string[];
}

export interface AuthRepo {
  getUser(email: string): Promise<UserRecord | undefined>;
  upsertUser(user: UserRecord): Promise<void>;
  getKey(id: string): Promise<KeyRecord | undefined>;
  findKeyByHash(hash: string): Promise<KeyRecord | undefined>;
  listKeys(): Promise<KeyRecord[]>;
  insertKey(key: KeyRecord): Promise<void>;
  updateKey(key: KeyRecord): Promise<void>;
  deleteKey(id: string): Promise<void>;
  countKeys(): Promise<number>;
  /** Users whose role is `role`, with or without keys. */
  countUsersWithRole(role: string): Promise<number>;
}

export interface RoleRecord {
  name: string;
  permissions: string[];
  builtin: boolean;
}

export interface RoleRepo {
  get(name: string): Promise<RoleRecord | undefined>;
  list(): Promise<RoleRecord[]>;
  upsert(role: RoleRecord): Promise<void>;
  delete(name: string): Promise<void>;
}

export interface SettingsRepo {
  get(name: string): Promise<JsonObject | undefined>;
  set(name: string, value: JsonObject): Promise<void>;
}

export interface DebugLink {
  title: string;
  url: string;
}

/** Pre-commit validation of a review, persisted so delivery survives a console restart. */
export interface ReviewValidationRecord {
  committer: string;
  startedTime: number;
  /** Epoch ms after which the review becomes validation_timed_out. */
  deadline: number;
  /** The change type the webhook is sent with; the body is built from the review at each attempt. */
  type: string;
  attempts: number;
  deliveredTime: number | null;
  lastError: string | null;
  validated: boolean | null;
  decidedTime: number | null;
  message: string | null;
  debugLinks: DebugLink[];
}

export interface ReviewRecord {
  id: string;
  kind: string;
  entityId: string;
  status: string;
  /** update, create, delete, start, ship, abandon. */
  action: string;
  description: string;
  /** The submitted change body (partial update, create body, or action body). */
  change: JsonObject | null;
  submitter: string;
  createdTime: number;
  lastModifiedTime: number;
  /** Entity version the review was made against; null for a create. */
  baseVersion: number | null;
  /** Stored entity data the change produces (without server stamps); null for a delete. */
  after: JsonObject | null;
  /** Read format (EntityService.toResponse) before and after, as reviewed. */
  oldConfig: JsonObject | null;
  newConfig: JsonObject | null;
  /** Webhook change types, the one sent first; empty when the change does not trigger the webhook. */
  changeTypes: string[];
  approvedBy: string | null;
  approvedTime: number | null;
  rejectedBy: string | null;
  rejectedTime: number | null;
  comment: string | null;
  canceledBy: string | null;
  canceledTime: number | null;
  committer: string | null;
  committedTime: number | null;
  committedVersion: number | null;
  bypassedValidation: boolean;
  validation: ReviewValidationRecord | null;
  /**
   * The entity write a review submitted through `x-respect-review-settings` stands for, when no review
   * action expresses it (a full update, a sub-resource write): `action` is then `update`, `change` the
   * patch from before to after, and commit re-checks this write. Absent otherwise.
   */
  write?: ReviewedWrite;
}

/** An entity write held by a review: a full update, or a kind action with its body and path parameters. */
export interface ReviewedWrite {
  type: 'update' | 'action';
  action?: string;
  params?: Readonly<Record<string, string>>;
  body: JsonObject | null;
}

/** What a review records as it is decided, committed or validated: nothing yet when submitted. */
export const UNDECIDED_REVIEW = {
  approvedBy: null,
  approvedTime: null,
  rejectedBy: null,
  rejectedTime: null,
  comment: null,
  canceledBy: null,
  canceledTime: null,
  committer: null,
  committedTime: null,
  committedVersion: null,
  bypassedValidation: false,
  validation: null,
} as const satisfies Partial<ReviewRecord>;

export interface ReviewQuery {
  kind?: string;
  entityId?: string;
  statuses?: readonly string[];
  offset: number;
  limit: number;
}

export interface ReviewRepo {
  get(id: string): Promise<ReviewRecord | undefined>;
  /** Throws DuplicateKeyError when the id exists. */
  insert(review: ReviewRecord): Promise<void>;
  update(review: ReviewRecord): Promise<void>;
  /** Newest first. */
  list(query: ReviewQuery): Promise<Page<ReviewRecord>>;
  /** Every review in a status, oldest first (the webhook dispatcher resumes these at start). */
  withStatus(status: string): Promise<ReviewRecord[]>;
}

/** The repositories, as seen outside a transaction (the store) or inside one (its handle). */
export interface StoreRepos {
  entities: EntityRepo;
  audit: AuditRepo;
  auth: AuthRepo;
  roles: RoleRepo;
  settings: SettingsRepo;
  reviews: ReviewRepo;
  /**
   * Inside a transaction: holds `name` until the transaction ends, so transactions that take the same
   * name run one after the other and each reads what the previous one committed — also where the row
   * it guards does not exist yet (a user, role or setting about to be created). Absent where
   * transactions never overlap (SQLite's are serial). Take several names in the order key, user, role.
   */
  lock?(name: string): Promise<void>;
}

/**
 * Marks of what may have changed: each differs whenever the stored data it covers may have changed
 * since it was last read. Caches of derived data key on them.
 * - `data`: anything (entities, reviews, settings, keys);
 * - `settings`: the settings alone (read on nearly every request, written rarely);
 * - `auth`: users, keys and roles (read on every request, written rarely).
 */
export interface ChangeMarks {
  data: string;
  settings: string;
  auth: string;
}

/**
 * A write another process made, announced so this one's waiters (review long polls) wake; or
 * `resync` (id ''): the announcements were interrupted (the connection carrying them dropped and came
 * back), so any of them may have been missed and whoever relies on them reads again.
 */
export interface StoreEvent {
  topic: 'review' | 'resync';
  id: string;
}

/**
 * Leases over named work shared by several processes on one database (e.g. delivering a review's
 * pre-commit webhook): at most one owner holds a lease until it expires or is released.
 */
export interface LeaseRepo {
  /** Takes or renews the lease for `ttlMs`; false when another owner holds an unexpired one. */
  acquire(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up, if `owner` holds it. */
  release(name: string, owner: string): Promise<void>;
  /** The unexpired leases whose names start with `prefix`, with when each expires (the database's clock, epoch ms). */
  list(prefix: string): Promise<{ name: string; owner: string; expiresAt: number }[]>;
}

export interface TransactionOptions {
  /**
   * What the transaction writes (e.g. one entity): this process's transactions with the same key run
   * one after another. Stores whose writers of one row wait on each other at the database queue them
   * in the process instead; stores that run one write at a time anyway ignore it.
   */
  serializeOn?: string;
}

export interface Store extends StoreRepos {
  /** What the store is, for logs and /readyz: `sqlite`, `memory`, `postgres`. */
  readonly dialect: string;
  /**
   * Runs fn atomically with the transaction's repositories: everything written through `tx` is kept,
   * or nothing is if fn throws. Calls on the store itself (outside `tx`) never see the transaction's
   * uncommitted writes; code inside fn must use `tx` only. Not nestable.
   */
  transaction<T>(fn: (tx: StoreRepos) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * The latest marks this process knows, or undefined when the store can't tell (caches must not cache
   * then). In-process stores know at once. A store shared by several processes knows them as of its
   * last `refreshMarks()`: callers that must see every acknowledged write refresh first.
   */
  marks?(): ChangeMarks | undefined;
  /**
   * Resolves once `marks()` reflects every write acknowledged (by any process) before this call.
   * Absent where `marks()` is always current. Concurrent calls share round trips.
   */
  refreshMarks?(): Promise<void>;
  /** Subscribes to writes other processes announce; returns the unsubscribe function. */
  subscribe?(listener: (event: StoreEvent) => void): () => void;
  /** Announces a committed write to the other processes on this database. */
  publish?(event: StoreEvent): Promise<void>;
  /** Present on stores several processes share. */
  leases?: LeaseRepo;
  /**
   * Connects and brings the schema up to date, for stores that can't do so as they are created (a
   * network database). The console awaits it before it serves; other calls before it settles fail.
   */
  open?(): Promise<void>;
  /** Throws when the database can't be reached or its schema is not this build's (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}


/** Thrown by a store when a unique key already exists. */
export class DuplicateKeyError extends Error {
  constructor(what: string) {
    super(`${what} already exists`);
    this.name = 'DuplicateKeyError';
  }
}

/** Throws unless a change is well formed: a known mode, and a version snapshot of its record (same kind, id and version). */
export function assertEntityChange(change: EntityChange): void {
  const { record, version, mode } = change;
  if (mode !== 'insert' && mode !== 'update') throw new Error(`EntityChange: mode must be 'insert' or 'update', not ${JSON.stringify(mode)}`);
  for (const field of ['kind', 'id', 'version'] as const) {
    if (version[field] !== record[field]) {
      throw new Error(`EntityChange: version.${field} (${String(version[field])}) differs from record.${field} (${String(record[field])})`);
    }
  }
}
