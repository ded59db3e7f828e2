import type { z } from 'zod';
import { EntityIdSchema } from '../../schemas/common.js';
import { describeJsonTreeProblem, jsonTreeProblem, MAX_JSON_DEPTH } from '../../schemas/json-tree-problem.js';
import { jsonEqual } from '../core/json-equal.js';
import { parseWith } from '../core/zod-errors.js';
import { SCHEMA_MISMATCH } from '../core/dynamic-config-rules.js';
import { STAMPED_WHEN_UNSET } from '../core/normalize.js';
import { ConflictError, InputError, NotAllowedError, NotFoundError, type FieldError } from '../errors.js';
import { DuplicateKeyError, type AuditEntry, type EntityRecord, type JsonObject, type StoreRepos } from '../store/ports.js';
import { labelInSentence, type KindDef } from './kinds/kind-def.js';
import { EntityReads, type EntityReadsDeps } from './entity-reads.js';
import type { PreloadedLookup } from './kinds/preloaded-lookup.js';
import { assertChangeWithinKeyScope, assertReferencesWithinKeyScope } from './key-scope.js';
import type { Actor } from './permissions.js';

export type EntityOp =
  | { type: 'create'; body: unknown }
  | { type: 'update'; id: string; body: unknown }
  | { type: 'patch'; id: string; body: unknown }
  | { type: 'delete'; id: string }
  | { type: 'action'; id: string; action: string; body?: unknown; params?: Readonly<Record<string, string>> };

export interface WriteOptions {
  dryRun?: boolean;
  /** Expected current version (If-Match, or the version a review was made against). */
  expectedVersion?: number;
  reviewId?: string;
  /** Extra facts for the audit row (e.g. a bypassed validation). */
  auditDetails?: JsonObject;
}

/** A validated change, not yet written: what reviews store as old and new config. */
export interface PreparedChange {
  id: string;
  op: EntityOp;
  before: EntityRecord | undefined;
  /** Stored data after the change; undefined for a delete. */
  after: JsonObject | undefined;
  changed: boolean;
}

export interface WriteResult {
  /** The entity as the read endpoint returns it; undefined after a delete. */
  entity: JsonObject | undefined;
  /** The stored entity after the write (its version included); undefined after a delete. */
  stored?: JsonObject;
  changed: boolean;
}

export interface EntityServiceDeps extends EntityReadsDeps {
  /**
   * Runs before a direct (non-review) write that persists something; throws to refuse it. Reviews
   * commit through prepare() + write(), so this never blocks them (is_config_review_required).
   */
  beforeDirectWrite?: (kind: string, actor: Actor) => Promise<void>;
}

/** Server-managed fields that don't count as a change when comparing before and after. */
export const STAMP_FIELDS: readonly string[] = ['version', 'createdTime', 'creatorName', 'lastModifiedTime', 'lastModifierID', 'lastModifierName', 'lastModifierEmail'];

const STAMPS = new Set(STAMP_FIELDS);

/** The errors of a body that failed its schema (as opposed to the checks after it): see prepare. */
const bodyShapeErrors = new WeakSet<InputError>();

/** `rules[0].passPercentage` → `rules`; `defaultValue.price` → `defaultValue`. */
const topLevelField = (property: string): string => /^[^.[]*/.exec(property)?.[0] ?? property;

/** Whether two stored entities are the same apart from server stamps (without copying either). */
function sameApartFromStamps(a: JsonObject, b: JsonObject): boolean {
  for (const key in a) if (Object.hasOwn(a, key) && !STAMPS.has(key) && !jsonEqual(a[key], b[key])) return false;
  // Keys only b has: the same, unless holding something (a[key] is undefined for them).
  for (const key in b) if (Object.hasOwn(b, key) && !Object.hasOwn(a, key) && !STAMPS.has(key) && !jsonEqual(undefined, b[key])) return false;
  return true;
}

function shapeKeys(schema: z.ZodType | undefined): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * The one implementation of entity writes for every kind: validation, optimistic concurrency,
 * version snapshots and the audit row, all in one store transaction. Its reads and their cache are
 * EntityReads'.
 */
export class EntityService extends EntityReads<EntityServiceDeps> {
  private readonly writable: Set<string>;

  constructor(def: KindDef, deps: EntityServiceDeps) {
    super(def, deps);
    this.writable = new Set(shapeKeys(def.schemas.patch ?? def.schemas.create));
  }

  private parse(schema: z.ZodType | undefined, body: unknown, what: string): JsonObject {
    if (!schema) throw new InputError(`${this.def.label}s do not support ${what}.`);
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new InputError('Request body must be a JSON object.', [{ property: '(body)', errorMessage: 'must be a JSON object' }]);
    }
    const parsed = parseWith(schema, body);
    if (!parsed.ok) {
      const error = new InputError(`Invalid ${labelInSentence(this.def.label)}.`, parsed.errors);
      bodyShapeErrors.add(error);
      throw error;
    }
    return parsed.value as JsonObject;
  }

  /** Validates a change and computes the entity after it, reading (through `repos`) but never writing. */
  async prepare(op: EntityOp, actor: Actor, repos: StoreRepos = this.deps.store): Promise<PreparedChange> {
    try {
      return await this.prepareOnce(op, actor, repos);
    } catch (error) {
      if (!(error instanceof InputError) || !bodyShapeErrors.has(error)) throw error;
      throw await this.withLaterErrors(error, op, actor, repos);
    }
  }

  /**
   * A body that fails its schema never reaches the checks that need the store or a parsed value
   * (references, JSON5 texts, a config's schema, allocations). Every violated constraint is to be
   * listed at once, so those checks run again on the body without the fields the schema refused,
   * and what they find about the other fields joins the error. Only a read: prepare never writes.
   */
  private async withLaterErrors(error: InputError, op: EntityOp, actor: Actor, repos: StoreRepos): Promise<InputError> {
    if (op.type !== 'create' && op.type !== 'update' && op.type !== 'patch') return error;
    const body = op.body as JsonObject;
    // A twin's error concerns its pair too: `defaultValueJson5` refused leaves `defaultValue` unknown.
    const refused = new Set(error.errors.map((e) => topLevelField(e.property).replace(/Json5$/, '')));
    if (refused.has('(body)') || refused.has('')) return error;
    const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !refused.has(key.replace(/Json5$/, ''))));
    // A create needs a name to go on; a stand-in keeps the other fields' checks running (its own errors are already listed).
    if (op.type === 'create' && refused.has('name')) rest['name'] = 'name_standing_in';
    try {
      await this.prepareOnce({ ...op, body: rest }, actor, repos);
    } catch (later) {
      if (!(later instanceof InputError) || bodyShapeErrors.has(later)) return error;
      const seen = new Set(error.errors.map((e) => `${e.property}\u0000${e.errorMessage}`));
      // Values checked against the stored schema while the body's own schema was refused would mislead.
      const againstOldSchema = (e: FieldError): boolean => refused.has('schema') && e.errorMessage.startsWith(SCHEMA_MISMATCH);
      const more = later.errors.filter(
        (e) => !refused.has(topLevelField(e.property).replace(/Json5$/, '')) && !againstOldSchema(e) && !seen.has(`${e.property}\u0000${e.errorMessage}`),
      );
      if (more.length > 0) return new InputError(error.message, [...error.errors, ...more]);
    }
    return error;
  }

  private async prepareOnce(op: EntityOp, actor: Actor, repos: StoreRepos): Promise<PreparedChange> {
    const { def } = this;
    const lookup = this.lookup();
    let id: string;
    let before: EntityRecord | undefined;
    let after: JsonObject | undefined;
    /** The parsed body of a create or update: what the client supplied, before defaults. */
    let supplied: JsonObject | undefined;
    switch (op.type) {
      case 'create': {
        const body = this.parse(def.schemas.create, op.body, 'create');
        supplied = body;
        id = def.idField === 'name' ? String(body['name']) : typeof body['id'] === 'string' ? body['id'] : deriveId(String(body['name']));
        if (def.idField === 'id' && body['id'] === undefined) {
          // A name may be valid where the id made from it isn't ('ab ' → 'ab').
          const derived = parseWith(EntityIdSchema, id);
          if (!derived.ok) {
            const reason = derived.errors[0]?.errorMessage ?? 'is not a valid id';
            throw new InputError(`Invalid ${labelInSentence(def.label)}.`, [{ property: 'id', errorMessage: `derived from name as '${id}', which ${reason}; send an id` }]);
          }
        }
        if (await repos.entities.get(def.kind, id)) throw new ConflictError(`${def.label} ${id} already exists.`);
        after = {
          [def.idField]: id,
          name: body['name'],
          ...structuredClone(def.defaults),
          ...(def.initial?.(body) ?? {}),
          creatorID: actor.userEmail,
          creatorEmail: actor.userEmail,
          ...body,
        };
        if (!('creatorID' in def.defaults)) {
          delete after['creatorID'];
          delete after['creatorEmail'];
        }
        break;
      }
      case 'update': {
        before = await this.current(op.id, repos);
        id = op.id;
        const body = this.parse(def.schemas.update, op.body, 'full updates');
        supplied = body;
        const kept = Object.fromEntries(Object.entries(before.data).filter(([k]) => !this.writable.has(k)));
        // The creator fields describe the create, as the name and type name the entity: left out, they stay.
        after = { ...kept, ...structuredClone(def.defaults), ...presentFields(before.data, ['name', 'type', ...STAMPED_WHEN_UNSET]), ...body };
        break;
      }
      case 'patch': {
        before = await this.current(op.id, repos);
        id = op.id;
        const body = this.parse(def.schemas.patch, op.body, 'partial updates');
        supplied = body;
        after = { ...before.data, ...body };
        break;
      }
      case 'delete': {
        if (!def.deletable) throw new InputError(`${def.label}s cannot be deleted.`);
        before = await this.current(op.id, repos);
        id = op.id;
        const { deleteBlocker } = def;
        const blocker = deleteBlocker && (await lookup.run(repos.entities, (l) => deleteBlocker(op.id, l)));
        if (blocker !== undefined) throw new ConflictError(blocker);
        return { id, op, before, after: undefined, changed: true };
      }
      case 'action': {
        const action = def.actions?.[op.action];
        if (!action) throw new NotFoundError(`Unknown action '${op.action}' for ${labelInSentence(def.label)}s.`);
        before = await this.current(op.id, repos);
        id = op.id;
        const body = action.body ? this.parse(action.body, op.body ?? {}, op.action) : undefined;
        const data = before.data;
        const params = op.params ?? {};
        after = await lookup.run(repos.entities, (l) => action.apply(structuredClone(data), body, l, params));
        break;
      }
    }
    if (def.idField === 'name' && after['name'] !== id && op.type !== 'create') {
      const renamed = String(after['name']);
      if (await repos.entities.get(def.kind, renamed)) throw new ConflictError(`${def.label} ${renamed} already exists.`);
    }
    after = def.prepare?.(after, before?.data, supplied) ?? after;
    // A sub-resource body (one rule, the overrides) lands deeper in the entity than it sits in its own
    // body, which the body parser measured: the entity is held to the files' limit, so it can always
    // be exported and sent back. A create or update body is the entity, measured already.
    if (op.type === 'action' && op.body !== undefined) assertWithinJsonLimits(after, def.label);
    const { validate } = def;
    const candidate = after;
    const errors: FieldError[] = validate ? await lookup.run(repos.entities, (l) => validate(candidate, l, before?.data)) : [];
    if (errors.length > 0) throw new InputError(`Invalid ${labelInSentence(def.label)}.`, errors);
    const changed = before === undefined || !sameApartFromStamps(before.data, after);
    return { id, op, before, after, changed };
  }

  /** Validates and applies a change in one transaction (or only validates, for a dry run). */
  async execute(op: EntityOp, actor: Actor, options: WriteOptions = {}): Promise<WriteResult> {
    if (!options.dryRun) await this.deps.beforeDirectWrite?.(this.def.kind, actor);
    // On a shared database the response is built after the commit: the entity's row stays locked until
    // then, and other writers of it wait for the lock. The lists it reads (the holdouts, for
    // holdoutIDs) are read at the transaction's start, in the same round trip as the entity. On
    // SQLite, inside the transaction: those reads then share the transaction's snapshot.
    const respondInside = this.deps.store.dialect !== 'postgres';
    let preloaded: Promise<PreloadedLookup> | undefined;
    const written = await this.deps.store.transaction(
      async (tx) => {
        if (!respondInside) {
          const lookup = this.lookup();
          preloaded = lookup.load(tx.entities, this.decorateLists).then(() => lookup);
          // Awaited after the commit; a failed transaction never gets there.
          preloaded.catch(() => undefined);
        }
        const prepared = await this.prepare(op, actor, tx);
        if (!options.dryRun) this.assertEntityAllowsDirectWrite(prepared, actor);
        return this.write(prepared, actor, tx, options, respondInside);
      },
      // This process's writers of one entity queue in the process rather than at its row lock.
      op.type === 'create' ? undefined : { serializeOn: `${this.def.kind}\u0000${op.id}` },
    );
    if (written.stored === undefined || written.entity !== undefined) return written;
    return { ...written, entity: await this.respond(written.stored, this.deps.store, await (preloaded ?? this.lookup())) };
  }

  /** An entity whose own reviewSettings require reviews changes only through a review, unless bypassed. */
  private assertEntityAllowsDirectWrite(prepared: PreparedChange, actor: Actor): void {
    const settings = prepared.before?.data['reviewSettings'] as { requiredReview?: unknown } | undefined;
    if (settings?.requiredReview !== true || actor.permissions.has('bypass_reviews')) return;
    throw new NotAllowedError(
      `${this.def.label} ${prepared.id} requires reviews (reviewSettings.requiredReview): submit the change as a review (POST .../${prepared.id}/reviews), or use a key whose role holds bypass_reviews.`,
    );
  }

  /**
   * Writes a prepared change: checks the expected version, stamps server fields, stores the entity,
   * its version snapshot and the audit row, through the caller's transaction.
   */
  async write(prepared: PreparedChange, actor: Actor, tx: StoreRepos, options: WriteOptions = {}, withResponse = true): Promise<WriteResult> {
    const result = (stored: JsonObject, changed: boolean): Promise<WriteResult> | WriteResult =>
      withResponse ? this.respond(stored, tx).then((entity) => ({ entity, stored, changed })) : { entity: undefined, stored, changed };
    const { def } = this;
    const { clock } = this.deps;
    const { before, id } = prepared;
    // Every write of an entity ends here (direct, dry run, review submission and commit).
    assertChangeWithinKeyScope({ label: def.label, id, before: before?.data, after: prepared.after }, actor);
    await assertReferencesWithinKeyScope(def.kind, { label: def.label, id, before: before?.data, after: prepared.after }, actor, async (kind, ref) => (await tx.entities.get(kind, ref))?.data);
    if (options.expectedVersion !== undefined && before !== undefined && before.version !== options.expectedVersion) {
      throw new ConflictError(`Version mismatch: ${def.label} ${id} is at version ${before.version}, not ${options.expectedVersion}.`);
    }
    if (prepared.after === undefined) {
      if (options.dryRun) return { entity: undefined, changed: true };
      await tx.entities.delete(def.kind, id);
      await this.audit(tx, actor, 'delete', id, before?.version ?? null, options);
      return { entity: undefined, changed: true };
    }
    if (!prepared.changed && before) return result(before.data, false);

    const now = clock();
    const version = (before?.version ?? 0) + 1;
    const data: JsonObject = {
      ...prepared.after,
      version,
      createdTime: before?.data['createdTime'] ?? now,
      creatorName: before?.data['creatorName'] ?? actor.userEmail,
      lastModifiedTime: now,
      lastModifierID: actor.userEmail,
      lastModifierName: actor.userEmail,
      lastModifierEmail: actor.userEmail,
    };
    if (options.dryRun) return result(data, true);

    const newId = String(data[def.idField]);
    const record: EntityRecord = { kind: def.kind, id: newId, version, data };
    const action = prepared.op.type === 'action' ? prepared.op.action : prepared.op.type;
    const snapshot = { kind: def.kind, id: newId, version, time: now, data };
    try {
      if (before === undefined || newId === before.id) {
        // One call: on PostgreSQL one round trip under the entity's row lock, which every write of
        // the entity waits for.
        await tx.entities.save({ record, mode: before ? 'update' : 'insert', version: snapshot, audit: this.auditEntry(actor, action, newId, version, options) });
      } else {
        // Kinds keyed by name (assignment sources) can be renamed: move the record and its history.
        const history = (await tx.entities.versions(def.kind, before.id, 0, Number.MAX_SAFE_INTEGER)).items;
        await tx.entities.delete(def.kind, before.id);
        await tx.entities.insert(record);
        for (const old of history.reverse()) await tx.entities.appendVersion({ ...old, id: newId });
        await tx.entities.appendVersion(snapshot);
        await this.audit(tx, actor, action, newId, version, { ...options, auditDetails: { ...options.auditDetails, renamedFrom: before.id } });
      }
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw new ConflictError(`${def.label} ${newId} already exists.`);
      throw error;
    }
    return result(data, true);
  }

  private async audit(tx: StoreRepos, actor: Actor, action: string, id: string, version: number | null, options: WriteOptions): Promise<void> {
    await tx.audit.append(this.auditEntry(actor, action, id, version, options));
  }

  private auditEntry(actor: Actor, action: string, id: string, version: number | null, options: WriteOptions): Omit<AuditEntry, 'id'> {
    return {
      time: this.deps.clock(),
      actorEmail: actor.userEmail,
      actorKeyId: actor.keyId,
      action,
      kind: this.def.kind,
      entityId: id,
      version,
      reviewId: options.reviewId ?? null,
      details: options.auditDetails ?? null,
    };
  }
}

function assertWithinJsonLimits(entity: JsonObject, label: string): void {
  const problem = jsonTreeProblem(entity, MAX_JSON_DEPTH);
  if (problem === undefined) return;
  const { property, errorMessage } = describeJsonTreeProblem(problem);
  throw new InputError(`Invalid ${labelInSentence(label)}.`, [{ property, errorMessage }]);
}

/** An id from a display name: spaces become underscores, letters lower case. */
export function deriveId(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '_');
}

/** The fields of `data` among `keys` that hold a value. */
function presentFields(data: JsonObject, keys: string[]): JsonObject {
  return Object.fromEntries(keys.filter((k) => data[k] !== undefined).map((k) => [k, data[k]]));
}
