import { deepFreeze } from '../../core/deep-freeze.js';
import type { EntityRecord } from '../ports.js';

interface Entry {
  list: readonly EntityRecord[];
  /** The other connections' mark when the list was read: their commits go unseen by this one. */
  external: number;
}

/** How a write changes a kind's list: the list after it, or undefined when it can't tell. */
export type ListChange = (list: readonly EntityRecord[]) => readonly EntityRecord[] | undefined;

/**
 * Whole kinds read on a SQLite connection, frozen, kept until something may have changed them in a
 * way this cache can't follow. A write of one record through this connection takes its kind's list
 * out while the statements run and puts it back changed as the row was written (a write that fails
 * leaves it out), so a list read afterwards, in or out of a transaction, holds that write; a rollback
 * drops everything (a list may hold what was undone); another connection's commit shows as a new
 * external mark. Validation and computed fields read whole kinds on every write (every holdout for a
 * gate's holdoutIDs; a layer's experiments for its allocation): without this each write parsed all of
 * them again.
 */
export class KindListCache {
  private readonly entries = new Map<string, Entry>();
  /** Writes of any kind through `write` so far: a rollback of none of them leaves every list right. */
  writes = 0;

  constructor(private readonly externalMark: () => number) {}

  /** The list of a kind: the cached one while it is current, else what `read` returns, frozen and kept. */
  get(kind: string, read: () => EntityRecord[]): readonly EntityRecord[] {
    const external = this.externalMark();
    const entry = this.entries.get(kind);
    if (entry !== undefined && entry.external === external) return entry.list;
    const list = deepFreeze(read());
    this.entries.set(kind, { list, external });
    return list;
  }

  /** Runs a write of the kind; once it has succeeded, the kept list (if any) is changed as it says. */
  write<T>(kind: string, run: () => T, change: ListChange): T {
    const entry = this.entries.get(kind);
    this.entries.delete(kind);
    this.writes++;
    const result = run();
    const list = entry && change(entry.list);
    if (entry !== undefined && list !== undefined) this.entries.set(kind, { list, external: entry.external });
    return result;
  }

  /** After a rollback that may have undone a write (whole, or to a savepoint set before one). */
  clear(): void {
    this.entries.clear();
  }
}

/** The change of a row written as `record` with `data` (its stored JSON): replaced in place, or appended when inserted. */
export function upserted(record: EntityRecord, data: string, inserted: boolean): ListChange {
  return (list) => {
    const stored = deepFreeze({ kind: record.kind, id: record.id, version: record.version, data: JSON.parse(data) as EntityRecord['data'] });
    if (inserted) return Object.freeze([...list, stored]);
    const at = list.findIndex((r) => r.id === record.id);
    if (at < 0) return undefined;
    const out = [...list];
    out[at] = stored;
    return Object.freeze(out);
  };
}

/** The change of a deleted row. */
export function removed(id: string): ListChange {
  return (list) => Object.freeze(list.filter((r) => r.id !== id));
}
