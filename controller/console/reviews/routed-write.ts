import { REVIEW_ACTIONS } from '../../../schemas/review.js';
import type { ChangeAction } from '../../core/change-type.js';
import { jsonEqual } from '../../core/json-equal.js';
import type { JsonObject, ReviewedWrite } from '../../store/ports.js';
import { STAMP_FIELDS, type EntityOp, type PreparedChange } from '../entity-service.js';
import type { KindDef } from '../kinds/kind-def.js';

/** Kind actions that are review actions under another name. */
const REVIEW_ACTION_OF: Readonly<Record<string, ChangeAction>> = { make_decision: 'ship' };

/** What a review submitted in place of an entity write records: its action, change and, when needed, the write itself. */
export interface RoutedSubmission {
  action: ChangeAction;
  change: JsonObject | null;
  write?: ReviewedWrite;
}

function objectOrNull(body: unknown): JsonObject | null {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as JsonObject) : null;
}

/** The review action a kind's action is, when it is one (a lifecycle action at the entity's own path). */
function reviewActionOf(def: KindDef, action: string): ChangeAction | undefined {
  if (def.actions?.[action]?.path !== undefined) return undefined;
  const mapped = REVIEW_ACTION_OF[action] ?? action;
  return mapped !== 'create' && mapped !== 'delete' && (REVIEW_ACTIONS as readonly string[]).includes(mapped) ? (mapped as ChangeAction) : undefined;
}

/**
 * The review that stands for a prepared entity write. Creates, patches, deletes and lifecycle actions
 * are review actions of their own; any other write (a full update, a sub-resource write) is an
 * `update` whose change is the patch from before to after, and carries the write so that the commit
 * re-checks exactly it.
 */
export function routedSubmission(def: KindDef, op: EntityOp, prepared: PreparedChange): RoutedSubmission {
  switch (op.type) {
    case 'create':
      return { action: 'create', change: { ...objectOrNull(op.body), [def.idField]: prepared.id } };
    case 'patch':
      return { action: 'update', change: objectOrNull(op.body) };
    case 'delete':
      return { action: 'delete', change: null };
    case 'action': {
      const action = reviewActionOf(def, op.action);
      if (action !== undefined) return { action, change: objectOrNull(op.body) };
      const write: ReviewedWrite = { type: 'action', action: op.action, body: objectOrNull(op.body), ...(op.params && Object.keys(op.params).length > 0 ? { params: op.params } : {}) };
      return { action: 'update', change: patchBetween(prepared.before?.data ?? {}, prepared.after ?? {}), write };
    }
    case 'update':
      return { action: 'update', change: patchBetween(prepared.before?.data ?? {}, prepared.after ?? {}), write: { type: 'update', body: objectOrNull(op.body) } };
  }
}

/** The entity write a review carries, as the operation the entity service prepares. */
export function writeOpOf(id: string, write: ReviewedWrite): EntityOp {
  if (write.type === 'update') return { type: 'update', id, body: write.body ?? {} };
  return { type: 'action', id, action: write.action ?? '', body: write.body ?? undefined, params: write.params ?? {} };
}

/** Top-level fields whose stored value differs (a removed field as null), server stamps left out. */
export function patchBetween(before: JsonObject, after: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (STAMP_FIELDS.includes(key) || jsonEqual(before[key] ?? null, after[key] ?? null)) continue;
    patch[key] = after[key] ?? null;
  }
  return patch;
}
