import type { z } from 'zod';
import type { FieldError } from '../../errors.js';
import type { EntityRecord, JsonObject } from '../../store/ports.js';
import type { ListFilter } from './list-filters.js';

/** Read access to other entities, for cross-entity rules and computed fields. */
export interface EntityLookup {
  get(kind: string, id: string): EntityRecord | undefined;
  list(kind: string): EntityRecord[];
  /** The console's clock (epoch ms), for lifecycle times and time-based computed fields. */
  now?(): number;
}

/**
 * A write to one entity beyond create/update/delete: a lifecycle action (`PUT /{path}/{id}/{name}`) or
 * a write to a sub-resource (`POST /gates/{id}/rules`, `DELETE /gates/{id}/rules/{ruleID}`). Every
 * action is an entity write like any other: one transaction, a version, an audit row, the review gate.
 */
export interface ActionDef {
  /** HTTP method; PUT unless the reference uses another (segments' PATCH add_ids). */
  method?: 'PUT' | 'PATCH' | 'POST' | 'DELETE';
  /**
   * Path under the entity's item path when it is not the action's name, with Fastify parameters
   * (`rules/:ruleID`); the parameters reach `apply` as `params`.
   */
  path?: string;
  /** OpenAPI summary when it is not derived from the action's name. */
  summary?: string;
  /** Past tense for messages and the audit log, e.g. "enabled". */
  done: string;
  /** Success message when it is not "<Label> <done> successfully." (the reference's wording). */
  message?: string;
  /** Optional body schema (e.g. make_decision's group). */
  body?: z.ZodType;
  /** True when the body may be left out (it is then parsed as `{}`), e.g. experiment start. */
  bodyOptional?: boolean;
  /**
   * What the response's `data` holds when it is not the entity: a part of it (the overrides) with
   * its schema, or nothing (`null`: a message only).
   */
  respond?: { schema: z.ZodType; view: (response: JsonObject) => unknown } | null;
  /** Returns the entity after the action; throws ConflictError for an invalid transition. */
  apply(entity: JsonObject, body: unknown, lookup: EntityLookup, params: Readonly<Record<string, string>>): JsonObject;
}

/** A read of part of an entity: `GET /{path}/{id}/{path}` (a gate's rules, a segment's id list). */
export interface ViewDef {
  /** Path under the entity's item path. */
  path: string;
  summary: string;
  message: string;
  /** Schema of `data`; with `list`, of one item of the `data` array (paged like every list). */
  schema: z.ZodType;
  list?: boolean;
  /** The data, from the entity's read response (computed fields and `activeReview` included). */
  read(response: JsonObject): unknown;
}

/**
 * Everything the generic entity service and routes need to serve one kind. Kinds differ only in
 * these declarations, so every kind gets the same conventions, transactions, versions and audit.
 */
export interface KindDef {
  /** Store kind and the webhook's config_type: gate, dynamic_config, segment, experiment, ... */
  kind: string;
  /** Path segment under /console/v1 and the config-repo folder name. */
  path: string;
  /** Singular label for messages: "Gate not found." */
  label: string;
  /** OpenAPI tag. */
  tag: string;
  /** Name of the path parameter and of the identifying field ('id', or 'name' for assignment sources). */
  idField: 'id' | 'name';
  /** Item path when it differs from the list path (assignment sources: /experiments/assignment_source). */
  itemPath?: string;
  schemas: {
    create: z.ZodType;
    update?: z.ZodType;
    patch?: z.ZodType;
    response: z.ZodType;
  };
  /** Values of writable fields a create or full update leaves out. */
  defaults: JsonObject;
  /** Server-managed fields a new entity starts with (status, ...). */
  initial?: (body: JsonObject) => JsonObject;
  /** Fields a full update keeps from the current entity although they are writable on create only. */
  createOnly?: readonly string[];
  /**
   * Normalises an entity about to be stored (rule ids, JSON derived from JSON5). Pure. `supplied` is
   * the parsed body of a create, full update or patch (absent for actions): what the client sent,
   * before defaults and the stored values were merged in.
   */
  prepare?: (entity: JsonObject, previous: JsonObject | undefined, supplied?: JsonObject) => JsonObject;
  /** Rules beyond the zod schema, including references to other entities. */
  validate?: (entity: JsonObject, lookup: EntityLookup, previous: JsonObject | undefined) => FieldError[];
  /** Refuses a delete (e.g. a layer still used by experiments) with a message, or returns undefined. */
  deleteBlocker?: (id: string, lookup: EntityLookup) => string | undefined;
  /** Computed response fields (holdoutIDs, count...). */
  decorate?: (entity: JsonObject, lookup: EntityLookup) => JsonObject;
  /**
   * True when `decorate` reads the clock (an experiment's isStale): its responses change with time
   * alone, so reads cache the stored record but build the response every time.
   */
  decorateReadsClock?: boolean;
  actions?: Readonly<Record<string, ActionDef>>;
  /** Reads of parts of an entity, by name. */
  views?: Readonly<Record<string, ViewDef>>;
  /** List query filters: name → predicate on the stored entity. */
  filters?: Readonly<Record<string, ListFilter>>;
  deletable: boolean;
  /** True when writes support `?dryRun=true` (or `dryRun` in the body). */
  dryRun?: 'query' | 'body';
}

/**
 * A kind's label inside a sentence ("Invalid gate.", "Create a dynamic config"): lower case, except
 * an initialism, which stays as it is written ("Invalid AI config.").
 */
export function labelInSentence(label: string): string {
  return /^[A-Z]{2}/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1);
}
