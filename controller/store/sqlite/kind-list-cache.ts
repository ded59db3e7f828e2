import { deepFreeze } from '../../core/deep-freeze.js';
import type { EntityRecord } from '../ports.js';

interface Entry {
  list: readonly EntityRecord[];
  /** The other connections' mark when the list was read: their commits go unseen by this one. */
  external: number;
}

/**
 * Whole kinds read on a SQLite connection, frozen, until something may have changed them. Every write
 * of a kind through this connection forgets it before the statement runs (so a list read afterwards,
 * in or out of a transaction, holds that write); a rollback forgets everything (a list read inside
 * the transaction may hold what was undone); another connection's commit shows as a new external
 * mark. Computed response fields read the same few kinds on every write (every holdout, for a gate's
 * holdoutIDs); without this each gate write parsed all of them again.
 */
export class KindListCache {
  private readonly entries = new Map<string, Entry>();

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

  /** Before any write of the kind. */
  forget(kind: string): void {
    this.entries.delete(kind);
  }

  /** After a rollback, whole or to a savepoint. */
  clear(): void {
    this.entries.clear();
  }
}
