import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { referrersOf, refusedWhileReferenced } from './entity-references.js';
import { declaredKind } from './declared-kind.js';
import type { EntityLookup, KindDef } from './kind-def.js';
import { hasTag } from './list-filters.js';

function renameErrors(source: JsonObject, lookup: EntityLookup, previous: JsonObject | undefined): FieldError[] {
  const before = previous?.['name'];
  if (typeof before !== 'string' || before === source['name']) return [];
  const referrers = referrersOf('assignment_source', before, lookup);
  return referrers.length === 0 ? [] : [{ property: 'name', errorMessage: `cannot change while ${referrers.join(', ')} use the source` }];
}

/**
 * Experiment assignment sources: listed and created under /experiments/assignment_sources, changed
 * under /experiments/assignment_source/{name}. Keyed by name; a new name renames the source (with its
 * version history). `dryRun: true` in a body validates and persists nothing.
 */
export const assignmentSourceKind: KindDef = declaredKind('assignment_source', {
  validate: renameErrors,
  deleteBlocker: refusedWhileReferenced('assignment_source', 'Assignment source'),
  filters: { tags: hasTag },
  dryRun: 'body',
});
