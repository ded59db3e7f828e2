import { SegmentIdListChangeSchema, SegmentIdListReadSchema, SegmentIdListResetSchema, SegmentIdsSchema } from '../../../schemas/segment.js';
import { InputError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { ARCHIVE_ACTIONS, ARCHIVED, assertNotArchived } from './archive-actions.js';
import { declaredKind } from './declared-kind.js';
import type { KindDef } from './kind-def.js';
import { equals, hasTag } from './list-filters.js';
import { refusedWhileOverridden } from './override-endpoints.js';
import { withRuleIds } from './rule-ids.js';

function assertIdList(segment: JsonObject): void {
  if (segment['type'] !== 'id_list') throw new InputError('Ids can only be changed on an id_list segment.', [{ property: 'ids', errorMessage: 'segment is not of type id_list' }]);
}

function idsOf(segment: JsonObject): string[] {
  assertIdList(segment);
  return (segment['ids'] as string[] | undefined) ?? [];
}

const idsIn = (body: unknown): string[] => (body as { ids: string[] }).ids;

/** The one implementation of each id-list write, shared by add_ids/remove_ids and the id_list endpoints. */
const addIds = (s: JsonObject, body: unknown): JsonObject => (assertNotArchived(s, 'Segment'), { ...s, ids: [...idsOf(s), ...idsIn(body)] });

function removeIds(s: JsonObject, body: unknown): JsonObject {
  assertNotArchived(s, 'Segment');
  const removed = new Set(idsIn(body));
  return { ...s, ids: idsOf(s).filter((id) => !removed.has(id)) };
}

function resetIds(s: JsonObject, body: unknown): JsonObject {
  assertNotArchived(s, 'Segment');
  assertIdList(s);
  return { ...s, ids: idsIn(body) };
}

export const segmentKind: KindDef = declaredKind('segment', {
  prepare: (segment, previous) => ({
    ...segment,
    rules: withRuleIds(segment['rules'], previous?.['rules']),
    ids: [...new Set((segment['ids'] as string[] | undefined) ?? [])],
  }),
  deleteBlocker: refusedWhileOverridden('segment', 'Segment'),
  decorate: (segment) => ({ count: ((segment['ids'] as unknown[] | undefined) ?? []).length, status: segment['status'] === ARCHIVED ? ARCHIVED : 'Active' }),
  actions: {
    add_ids: { method: 'PATCH', done: 'updated', body: SegmentIdsSchema, apply: addIds },
    remove_ids: { method: 'PATCH', done: 'updated', body: SegmentIdsSchema, apply: removeIds },
    // The reference's id_list endpoints answer with a message only.
    id_list_add: {
      method: 'PATCH',
      path: 'id_list',
      summary: 'Add ids to an id_list segment',
      done: 'updated',
      message: 'IDs successfully added to Segment ID List',
      body: SegmentIdListChangeSchema,
      respond: null,
      apply: addIds,
    },
    id_list_remove: {
      method: 'DELETE',
      path: 'id_list',
      summary: 'Remove ids from an id_list segment',
      done: 'updated',
      message: 'IDs successfully removed from Segment ID List',
      body: SegmentIdListChangeSchema,
      respond: null,
      apply: removeIds,
    },
    id_list_reset: {
      method: 'POST',
      path: 'id_list/reset',
      summary: 'Replace the ids of an id_list segment',
      done: 'reset',
      message: 'Segment ID List reset successfully.',
      body: SegmentIdListResetSchema,
      respond: null,
      apply: resetIds,
    },
    ...ARCHIVE_ACTIONS,
  },
  views: {
    id_list: {
      path: 'id_list',
      summary: 'Read the ids of a segment',
      message: 'IDs read successfully.',
      schema: SegmentIdListReadSchema,
      read: (s) => ({ name: s['name'], count: ((s['ids'] as unknown[] | undefined) ?? []).length, ids: s['ids'] ?? [] }),
    },
  },
  filters: {
    type: equals('type'),
    idType: equals('idType'),
    tags: hasTag,
  },
});
