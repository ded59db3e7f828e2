/**
 * Store ports. Synchronous on purpose: better-sqlite3 is synchronous, and a write must never keep a
 * transaction open across event-loop ticks. Every port has a SQLite adapter and an in-memory fake
 * that pass the same contract suite (`store-contract.test.ts`).
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

export interface EntityRepo {
  get(kind: string, id: string): EntityRecord | undefined;
  /** The stored version alone (no data parsed), or undefined when absent: for staleness checks. */
  version(kind: string, id: string): number | undefined;
  /** Every entity of a kind, in creation order. */
  list(kind: string): EntityRecord[];
  /** One page of a kind, in creation order. */
  page(kind: string, offset: number, limit: number): Page<EntityRecord>;
  /** Throws DuplicateKeyError when (kind, id) exists. */
  insert(record: EntityRecord): void;
  update(record: EntityRecord): void;
  delete(kind: string, id: string): void;
  appendVersion(version: VersionRecord): void;
  /** Versions newest first. */
  versions(kind: string, id: string, offset: number, limit: number): Page<VersionRecord>;
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
  append(entry: Omit<AuditEntry, 'id'>): AuditEntry;
  /** Newest first. */
  list(query: AuditQuery): Page<AuditEntry>;
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
}

export interface AuthRepo {
  getUser(email: string): UserRecord | undefined;
  upsertUser(user: UserRecord): void;
  getKey(id: string): KeyRecord | undefined;
  findKeyByHash(hash: string): KeyRecord | undefined;
  listKeys(): KeyRecord[];
  insertKey(key: KeyRecord): void;
  updateKey(key: KeyRecord): void;
  deleteKey(id: string): void;
  countKeys(): number;
}

export interface RoleRecord {
  name: string;
  permissions: string[];
  builtin: boolean;
}

export interface RoleRepo {
  get(name: string): RoleRecord | undefined;
  list(): RoleRecord[];
  upsert(role: RoleRecord): void;
}

export interface SettingsRepo {
  get(name: string): JsonObject | undefined;
  set(name: string, value: JsonObject): void;
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
  get(id: string): ReviewRecord | undefined;
  /** Throws DuplicateKeyError when the id exists. */
  insert(review: ReviewRecord): void;
  update(review: ReviewRecord): void;
  /** Newest first. */
  list(query: ReviewQuery): Page<ReviewRecord>;
  /** Every review in a status, oldest first (the webhook dispatcher resumes these at start). */
  withStatus(status: string): ReviewRecord[];
}

export interface Store {
  entities: EntityRepo;
  audit: AuditRepo;
  auth: AuthRepo;
  roles: RoleRepo;
  settings: SettingsRepo;
  reviews: ReviewRepo;
  /** Runs fn atomically: everything it wrote is kept, or nothing is if it throws. Nestable. */
  transaction<T>(fn: () => T): T;
  /**
   * A value that differs whenever stored data may have changed since it was last read: at once after
   * any write by this store (committed or rolled back); after a commit by another connection to the
   * same database within a short bound the store documents (SQLite: 100 ms). Undefined inside a
   * transaction, and when the store can't tell: caches of derived data key on it and must not cache then.
   */
  changeMark?(): string | undefined;
  /**
   * Like changeMark, for the settings alone: moves at once after a settings write by this store, and
   * after any commit by another connection within the same bound. Settings are read on nearly every
   * request and written rarely: keyed on changeMark, their cache would be dropped by every write.
   */
  settingsMark?(): string | undefined;
  close(): void;
}

/** Thrown by a store when a unique key already exists. */
export class DuplicateKeyError extends Error {
  constructor(what: string) {
    super(`${what} already exists`);
    this.name = 'DuplicateKeyError';
  }
}
