import { ConflictError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import type { ActionDef } from './kind-def.js';

/** Stored `status` of an archived gate, dynamic config or segment. */
export const ARCHIVED = 'Archived';

export const isArchived = (entity: JsonObject): boolean => entity['status'] === ARCHIVED;

/** Refuses a lifecycle action on an archived entity: unarchive comes first. */
export function assertNotArchived(entity: JsonObject, label: string): void {
  if (isArchived(entity)) throw new ConflictError(`${label} ${String(entity['id'])} is archived; unarchive it first.`);
}

/**
 * `archive` and `unarchive` for kinds whose stored `status` is only ever set by archiving (dynamic
 * configs, segments): archiving stores `status: Archived`, unarchiving removes it again. Both are
 * idempotent.
 */
export const ARCHIVE_ACTIONS: Readonly<Record<'archive' | 'unarchive', ActionDef>> = {
  archive: { done: 'archived', apply: (e) => (isArchived(e) ? e : { ...e, status: ARCHIVED }) },
  unarchive: {
    done: 'unarchived',
    apply: (e) => {
      if (!isArchived(e)) return e;
      const { status: _archived, ...rest } = e;
      return rest;
    },
  },
};
