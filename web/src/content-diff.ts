import { ServerFieldsShape } from '../../schemas/common.js';
import { fieldChanges, type FieldChange } from './field-changes.js';

/** Bookkeeping every write changes (version, times, modifier); a diff that listed it would bury the change. */
const BOOKKEEPING = Object.keys(ServerFieldsShape);

function withoutBookkeeping(entity: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entity).filter(([k]) => !BOOKKEEPING.includes(k)));
}

/** Field-level changes between two states of an entity, rules and other named items matched by id or name. */
export function contentChanges(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  return fieldChanges(withoutBookkeeping(before), withoutBookkeeping(after));
}
