import type { EntityRecord, EntityRepo } from '../../store/ports.js';
import type { EntityLookup } from './kind-def.js';

/** Thrown by a preloaded lookup asked for what it doesn't hold yet; never escapes `withLookup`. */
class LookupMiss {
  constructor(
    readonly kind: string,
    readonly id?: string,
  ) {}
}

const key = (kind: string, id: string): string => `${kind}\u0000${id}`;

/** A whole kind for kind functions, which only read it: the store's shared frozen list where it keeps one. */
const readShared = (entities: EntityRepo, kind: string): Promise<readonly EntityRecord[]> => (entities.listFrozen ? entities.listFrozen(kind) : entities.list(kind));

/**
 * What a lookup has read: whole kinds and single records. Kind definitions read other entities
 * synchronously (they are pure functions of what they are given); the store answers asynchronously.
 * So a kind function runs against what is loaded, and when it asks for something else the miss is
 * loaded and the function runs again from the start — a handful of reads at most per call.
 */
export class PreloadedLookup implements EntityLookup {
  private readonly lists = new Map<string, readonly EntityRecord[]>();
  private readonly records = new Map<string, EntityRecord | undefined>();

  constructor(readonly now?: () => number) {}

  get(kind: string, id: string): EntityRecord | undefined {
    const list = this.lists.get(kind);
    if (list !== undefined) return list.find((r) => r.id === id);
    const k = key(kind, id);
    if (!this.records.has(k)) throw new LookupMiss(kind, id);
    return this.records.get(k);
  }

  list(kind: string): EntityRecord[] {
    const list = this.lists.get(kind);
    if (list === undefined) throw new LookupMiss(kind);
    return list as EntityRecord[];
  }

  /** Holds a whole kind (cached lookups hold frozen lists). */
  hold(kind: string, records: readonly EntityRecord[]): void {
    this.lists.set(kind, records);
  }

  /** Loads whole kinds it doesn't hold yet, all at once (their reads go out together), as `run` loads learned kinds. */
  async load(entities: EntityRepo, kinds: Iterable<string>): Promise<void> {
    const missing = [...kinds].filter((kind) => !this.lists.has(kind));
    const lists = await Promise.all(missing.map((kind) => readShared(entities, kind)));
    missing.forEach((kind, i) => this.lists.set(kind, lists[i]!));
  }

  /**
   * Runs fn, loading what it misses from `entities` and running it again, until it completes. Kinds in
   * `learned` are loaded whole before the first run, and every kind fn lists is added to it: a caller
   * whose function always lists the same kinds (computed fields) runs it once after the first time.
   * Kind functions only read what a lookup gives them: whole kinds come frozen from the store's
   * shared lists where it keeps them (`listFrozen`), since validation and computed fields read the
   * same kinds on every write and read.
   */
  async run<T>(entities: EntityRepo, fn: (lookup: EntityLookup) => T, freeze?: <R>(value: R) => R, learned?: Set<string>): Promise<T> {
    if (learned) {
      for (const kind of learned) {
        if (this.lists.has(kind)) continue;
        const list = await readShared(entities, kind);
        this.lists.set(kind, freeze ? freeze(list) : list);
      }
    }
    for (;;) {
      try {
        return fn(this);
      } catch (error) {
        if (!(error instanceof LookupMiss)) throw error;
        if (error.id === undefined) {
          learned?.add(error.kind);
          const list = await readShared(entities, error.kind);
          this.lists.set(error.kind, freeze ? freeze(list) : list);
        } else {
          const record = await entities.get(error.kind, error.id);
          this.records.set(key(error.kind, error.id), freeze && record ? freeze(record) : record);
        }
      }
    }
  }
}
