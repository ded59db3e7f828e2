import {
  ASSIGNMENT_SOURCE_DEFAULTS,
  AssignmentSourceCreateRequestSchema,
  AssignmentSourcePatchSchema,
  AssignmentSourceSchema,
  AssignmentSourceUpdateSchema,
} from '../../../schemas/assignment-source.js';
import { assignmentSourceRuleErrors } from '../../core/assignment-source-rules.js';
import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { referrersOf, refusedWhileReferenced } from './entity-references.js';
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
export const assignmentSourceKind: KindDef = {
  kind: 'assignment_source',
  path: 'experiments/assignment_sources',
  itemPath: 'experiments/assignment_source',
  label: 'Assignment source',
  tag: 'Assignment sources',
  idField: 'name',
  schemas: { create: AssignmentSourceCreateRequestSchema, update: AssignmentSourceUpdateSchema, patch: AssignmentSourcePatchSchema, response: AssignmentSourceSchema },
  defaults: ASSIGNMENT_SOURCE_DEFAULTS,
  validate: (source, lookup, previous) => [
    ...assignmentSourceRuleErrors(source),
    ...renameErrors(source, lookup, previous),
  ],
  deleteBlocker: refusedWhileReferenced('assignment_source', 'Assignment source'),
  filters: { tags: hasTag },
  deletable: true,
  dryRun: 'body',
};
