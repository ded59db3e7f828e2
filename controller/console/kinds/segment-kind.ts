import { SEGMENT_DEFAULTS, SegmentCreateSchema, SegmentIdsSchema, SegmentPatchSchema, SegmentSchema, SegmentUpdateSchema } from '../../../schemas/segment.js';
import { segmentRuleErrors } from '../../core/segment-rules.js';
import { InputError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { ARCHIVE_ACTIONS, ARCHIVED, assertNotArchived } from './archive-actions.js';
import type { KindDef } from './kind-def.js';
import { hasTag } from './list-filters.js';
import { refusedWhileOverridden } from './override-endpoints.js';
import { withRuleIds } from './rule-ids.js';

function idsOf(segment: JsonObject): string[] {
  if (segment['type'] !== 'id_list') throw new InputError('Ids can only be changed on an id_list segment.', [{ property: 'ids', errorMessage: 'segment is not of type id_list' }]);
  return (segment['ids'] as string[] | undefined) ?? [];
}

export const segmentKind: KindDef = {
  kind: 'segment',
  path: 'segments',
  label: 'Segment',
  tag: 'Segments',
  idField: 'id',
  schemas: { create: SegmentCreateSchema, update: SegmentUpdateSchema, patch: SegmentPatchSchema, response: SegmentSchema },
  defaults: SEGMENT_DEFAULTS,
  prepare: (segment, previous) => ({
    ...segment,
    rules: withRuleIds(segment['rules'], previous?.['rules']),
    ids: [...new Set((segment['ids'] as string[] | undefined) ?? [])],
  }),
  validate: segmentRuleErrors,
  deleteBlocker: refusedWhileOverridden('segment', 'Segment'),
  decorate: (segment) => ({ count: ((segment['ids'] as unknown[] | undefined) ?? []).length, status: segment['status'] === ARCHIVED ? ARCHIVED : 'Active' }),
  actions: {
    add_ids: {
      method: 'PATCH',
      done: 'updated',
      body: SegmentIdsSchema,
      apply: (s, body) => (assertNotArchived(s, 'Segment'), { ...s, ids: [...idsOf(s), ...(body as { ids: string[] }).ids] }),
    },
    remove_ids: {
      method: 'PATCH',
      done: 'updated',
      body: SegmentIdsSchema,
      apply: (s, body) => {
        assertNotArchived(s, 'Segment');
        const removed = new Set((body as { ids: string[] }).ids);
        return { ...s, ids: idsOf(s).filter((id) => !removed.has(id)) };
      },
    },
    ...ARCHIVE_ACTIONS,
  },
  filters: {
    type: (s, v) => s['type'] === v,
    idType: (s, v) => s['idType'] === v,
    tags: hasTag,
  },
  deletable: true,
};
