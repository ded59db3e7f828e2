import { ServerFieldsShape } from '../../schemas/common.js';
import { diffEntities, type FieldChange } from '../../controller/core/diff.js';

/** Bookkeeping every write changes (version, times, modifier); a diff that listed it would bury the change. */
const BOOKKEEPING = Object.keys(ServerFieldsShape);

function withoutBookkeeping(entity: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entity).filter(([k]) => !BOOKKEEPING.includes(k)));
}

/** Field-level changes between two states of an entity, as the plan describes them (the same diff). */
export function contentChanges(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  return diffEntities(withoutBookkeeping(before), withoutBookkeeping(after));
}
