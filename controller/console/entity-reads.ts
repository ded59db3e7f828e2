import { deepFreeze } from '../core/deep-freeze.js';
import { NotFoundError } from '../errors.js';
import type { EntityRecord, JsonObject, Page, Store, StoreRepos } from '../store/ports.js';
import type { EntityLookup, KindDef } from './kinds/kind-def.js';
import { activeReviewsOf, type ActiveReview } from './active-reviews.js';
import { PreloadedLookup } from './kinds/preloaded-lookup.js';
import { conformOwnCopy } from './kinds/response-shape.js';
import { FILTER_SLICE, LIST_WORK, yieldToEventLoop, type ListWorkSlots } from './list-work-slots.js';

export interface EntityReadsDeps {
  store: Store;
  clock: () => number;
  /** Base of permalinks, e.g. http://127.0.0.1:8080 */
  publicUrl: () => string;
  /** Where filtered lists take turns (LIST_WORK, the process's, by default). */
  listWork?: ListWorkSlots;
}

/** Entities of one kind kept by the read cache of `get` (cleared when full). */
const READ_CACHE_MAX = 1000;

/** Characters of list bodies one kind keeps in its read cache (cleared when full): 10,000 entities take ≈ 13 M. */
const LIST_CACHE_MAX_CHARS = 32 * 1024 * 1024;

/** Characters of item texts one kind keeps for list pages (cleared when full): 20,000 gates take ≈ 8 M. */
const ITEM_CACHE_MAX_CHARS = 32 * 1024 * 1024;

/** What one kind's reads cache holds while the store's data mark and the public URL stay the same. */
interface Reads {
  mark: string;
  url: string;
  records: Map<string, EntityRecord>;
  responses: Map<string, JsonObject>;
  /** Response bodies of unfiltered list pages, by request URL (path and query). */
  lists: Map<string, string>;
  listChars: number;
  /** JSON texts of responses, by entity id, for list pages. */
  itemJson: Map<string, string>;
  itemChars: number;
  lookup: PreloadedLookup;
}

/**
 * Where a list page's body is kept, handed out before the page is read: a body stored here was built
 * from data at least as new as the mark this cache belongs to, so it is never served once a write
 * has moved the mark (the next read starts another cache).
 */
export class ListBodyCache {
  constructor(private readonly reads: Reads) {}

  get(key: string): string | undefined {
    return this.reads.lists.get(key);
  }

  set(key: string, body: string): void {
    const reads = this.reads;
    if (reads.listChars + body.length > LIST_CACHE_MAX_CHARS) {
      reads.lists.clear();
      reads.listChars = 0;
    }
    if (body.length > LIST_CACHE_MAX_CHARS) return;
    reads.lists.set(key, body);
    reads.listChars += body.length;
  }
}

/**
 * An entity kind's reads: one entity, list pages and versions in the response shape, with their
 * cache. Reads are cached until the store's data mark moves (any write in this process, committed or
 * rolled back, or a commit by another process): the stored record, and the lists of other kinds
 * computed fields read (every holdout, for holdoutIDs), and the response itself unless it changes
 * with the clock. Everything cached is frozen: callers never change a response.
 */
export class EntityReads<Deps extends EntityReadsDeps = EntityReadsDeps> {
  /** Reads since the store's data mark last moved (see `get`). */
  private reads: Reads | undefined;

  constructor(
    readonly def: KindDef,
    protected readonly deps: Deps,
  ) {}

  protected readonly decorateLists = new Set<string>();

  /** A lookup for one call (kind functions read other entities through it). */
  protected lookup(): PreloadedLookup {
    return new PreloadedLookup(this.deps.clock);
  }

  notFound(id: string): NotFoundError {
    return new NotFoundError(`${this.def.label} not found.`, { cause: id });
  }

  protected async current(id: string, repos: StoreRepos = this.deps.store): Promise<EntityRecord> {
    const record = await repos.entities.get(this.def.kind, id);
    if (!record) throw this.notFound(id);
    return record;
  }

  /** Response shape of a stored entity: computed fields added, internal ones dropped. */
  toResponse(data: JsonObject, lookup: EntityLookup): JsonObject {
    const id = String(data[this.def.idField]);
    const itemPath = this.def.itemPath ?? this.def.path;
    // Object.assign, not rest/spread: this runs on every read, and V8 copies ~4x faster this way (bench:api).
    const out: JsonObject = Object.assign({}, data, this.def.decorate?.(data, lookup), {
      permalink: `${this.deps.publicUrl()}/console/v1/${itemPath}/${encodeURIComponent(id)}`,
    });
    if ('statusBeforeArchive' in out) delete out['statusBeforeArchive'];
    return conformOwnCopy(this.def.schemas.response, out);
  }

  /** The response shape of stored data, reading what its computed fields need through `repos`. */
  respond(data: JsonObject, repos: StoreRepos = this.deps.store, lookup = this.lookup()): Promise<JsonObject> {
    return lookup.run(repos.entities, (lookup) => this.toResponse(data, lookup), undefined, this.decorateLists);
  }

  /** The cached response of `get(id)` when it is current, at once; undefined when `get` must build it. */
  cachedRead(id: string): JsonObject | undefined {
    const reads = this.reads;
    if (reads === undefined) return undefined;
    return reads.mark === this.deps.store.marks?.()?.data && reads.url === this.deps.publicUrl() ? reads.responses.get(id) : undefined;
  }

  /** The reads cache of the current data mark and public URL; undefined when the store has no marks. */
  private currentReads(): Reads | undefined {
    const mark = this.deps.store.marks?.()?.data;
    if (mark === undefined) return undefined;
    const url = this.deps.publicUrl();
    if (this.reads?.mark !== mark || this.reads.url !== url) {
      this.reads = { mark, url, records: new Map(), responses: new Map(), lists: new Map(), listChars: 0, itemJson: new Map(), itemChars: 0, lookup: this.lookup() };
    }
    return this.reads;
  }

  /** The entity in the response shape, from the reads cache when it is current. */
  async get(id: string): Promise<JsonObject> {
    const reads = this.currentReads();
    if (reads === undefined) return this.withActiveReview(await this.respond((await this.current(id)).data), (await activeReviewsOf(this.deps.store.reviews, this.def.kind, id)).get(id));
    const cached = reads.responses.get(id);
    if (cached !== undefined) return cached;
    let record = reads.records.get(id);
    if (record === undefined) {
      record = deepFreeze(await this.current(id));
      if (reads.records.size >= READ_CACHE_MAX) reads.records.clear();
      reads.records.set(id, record);
    }
    const data = record.data;
    // Review writes move the data mark too, so a cached response never shows a review that has closed since.
    const active = (await activeReviewsOf(this.deps.store.reviews, this.def.kind, id)).get(id);
    const built = await reads.lookup.run(this.deps.store.entities, (lookup) => this.toResponse(data, lookup), deepFreeze, this.decorateLists);
    const response = this.withActiveReview(built, active);
    if (!this.def.decorateReadsClock) {
      if (reads.responses.size >= READ_CACHE_MAX) reads.responses.clear();
      reads.responses.set(id, deepFreeze(response));
    }
    return response;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.deps.store.entities.get(this.def.kind, id)) !== undefined;
  }

  /**
   * The cache of this kind's list bodies as of now, to take before reading a page: repeated listings
   * (every plan reads every entity) are answered with the bytes of the last answer until the data
   * mark moves, as `get` is. None for a filtered list, a kind whose responses change with the clock,
   * or a store without marks.
   */
  listCache(filters: Record<string, string>): ListBodyCache | undefined {
    if (this.def.decorateReadsClock === true || Object.keys(filters).some((name) => this.def.filters?.[name] !== undefined)) return undefined;
    const reads = this.currentReads();
    return reads === undefined ? undefined : new ListBodyCache(reads);
  }

  /**
   * One page of the kind, each item as the JSON text of its response: texts come from the reads
   * cache of the current data mark where it has them, so a page of items already answered costs a
   * join, not a rebuild and a serialisation of each (bench:api, neighbour).
   */
  async listJson(offset: number, limit: number, filters: Record<string, string>): Promise<Page<string>> {
    // Taken before the page is read: a text stored here was built from data at least as new as its mark.
    const reads = this.def.decorateReadsClock === true ? undefined : this.currentReads();
    const page = await this.pageOf(offset, limit, filters);
    if (reads === undefined) return { total: page.total, items: (await this.responsesOf(page.items)).map((item) => JSON.stringify(item)) };
    const missing = page.items.filter((record) => !reads.itemJson.has(record.id));
    if (missing.length > 0) {
      const built = await this.responsesOf(missing);
      built.forEach((response, i) => {
        const text = JSON.stringify(response);
        if (reads.itemChars + text.length > ITEM_CACHE_MAX_CHARS) {
          reads.itemJson.clear();
          reads.itemChars = 0;
        }
        reads.itemJson.set(missing[i]?.id ?? '', text);
        reads.itemChars += text.length;
      });
    }
    const texts = page.items.map((record) => reads.itemJson.get(record.id));
    // A text dropped by a clear while this page was built is built again; it happens only when the cache is full.
    if (texts.every((text): text is string => text !== undefined)) return { total: page.total, items: texts };
    return { total: page.total, items: (await this.responsesOf(page.items)).map((item) => JSON.stringify(item)) };
  }

  /** Stored records in the response shape, each with its open review. */
  private async responsesOf(records: readonly EntityRecord[]): Promise<JsonObject[]> {
    const { entities } = this.deps.store;
    const reviews = await activeReviewsOf(this.deps.store.reviews, this.def.kind);
    return this.lookup().run(entities, (lookup) => records.map((r) => this.withActiveReview(this.toResponse(r.data, lookup), reviews.get(String(r.data[this.def.idField])))), undefined, this.decorateLists);
  }

  /** The stored records of one page, filtered. */
  private async pageOf(offset: number, limit: number, filters: Record<string, string>): Promise<Page<EntityRecord>> {
    const active = Object.entries(filters).filter(([name]) => this.def.filters?.[name] !== undefined);
    const { entities } = this.deps.store;
    if (active.length === 0) return entities.page(this.def.kind, offset, limit);
    // Filtered by the database where the store can (PostgreSQL): only the page comes back.
    const conditions = entities.pageWhere ? active.map(([name, value]) => this.def.filters?.[name]?.condition?.(value)) : [];
    if (entities.pageWhere && conditions.every((c) => c !== undefined)) return entities.pageWhere(this.def.kind, conditions, offset, limit);
    // Else it reads the whole kind: it waits for a list slot and works in slices, so that
    // however many arrive at once, other requests are answered in between (bench:api, neighbour).
    return (this.deps.listWork ?? LIST_WORK).run(async () => {
      // The store's shared, already parsed list when it keeps one: not every row parsed again per request.
      const all = entities.listFrozen ? await entities.listFrozen(this.def.kind) : await entities.list(this.def.kind);
      const matches = (r: EntityRecord): boolean => active.every(([name, value]) => this.def.filters?.[name]?.(r.data, value) ?? true);
      const selected: EntityRecord[] = [];
      let total = 0;
      for (let start = 0; start < all.length; start += FILTER_SLICE) {
        if (start > 0) await yieldToEventLoop();
        const end = Math.min(all.length, start + FILTER_SLICE);
        for (let i = start; i < end; i++) {
          const record = all[i] as EntityRecord;
          if (!matches(record)) continue;
          if (total >= offset && selected.length < limit) selected.push(record);
          total++;
        }
      }
      return { total, items: selected };
    });
  }

  /** A read response with the entity's open review, or without any (stored data may carry a null). */
  private withActiveReview(response: JsonObject, active: ActiveReview | undefined): JsonObject {
    if (active === undefined) {
      if (!('activeReview' in response)) return response;
      const { activeReview: _none, ...rest } = response;
      return rest;
    }
    return Object.assign({}, response, { activeReview: { ...active } });
  }

  async versions(id: string, offset: number, limit: number): Promise<Page<JsonObject>> {
    await this.current(id);
    const { entities } = this.deps.store;
    const page = await entities.versions(this.def.kind, id, offset, limit);
    const items = await this.lookup().run(entities, (lookup) => page.items.map((v) => this.toResponse(v.data, lookup)), undefined, this.decorateLists);
    return { total: page.total, items };
  }
}
