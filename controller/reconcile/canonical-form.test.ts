import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { canonical, canonicalReference, generatedToDrop, itemKey, normalizeLive } from '../core/normalize.js';
import type { JsonObject, RepoEntity } from '../core/repo-entity.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { loadRepo } from '../source/load-repo.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/config-repo', import.meta.url));

/** The entity with one key of one object (at any depth) changed: removed, null, own undefined, empty, false, or given a JSON5 twin. */
function* mutations(data: JsonObject): Generator<JsonObject> {
  const copy = structuredClone(data);
  const objects: JsonObject[] = [];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === 'object' && value !== null) {
      objects.push(value as JsonObject);
      Object.values(value).forEach(collect);
    }
  };
  collect(copy);
  for (const object of objects) {
    for (const key of Object.keys(object)) {
      const saved = object[key];
      for (const change of [() => delete object[key], () => (object[key] = null), () => (object[key] = undefined), () => (object[key] = []), () => (object[key] = {}), () => (object[key] = ''), () => (object[key] = false), () => (object[`${key}Json5`] = '{}')]) {
        change();
        yield structuredClone(copy);
        delete object[`${key}Json5`];
        object[key] = saved;
      }
    }
  }
}

/** Every example entity with its kind's schema entry. */
async function exampleEntities(): Promise<{ entity: RepoEntity; entry: EntitySchemaEntry }[]> {
  const repo = await loadRepo(new FsRepoReader(EXAMPLE));
  expect(repo.entities.length).toBeGreaterThan(10);
  return repo.entities.map((entity) => {
    const entry = ENTITY_SCHEMAS.find((e) => e.folder === entity.folder);
    if (!entry) throw new Error(entity.folder);
    return { entity, entry };
  });
}

describe('canonical (compiled per kind)', () => {
  it('gives what the interpreted form gives, key order included, for every example entity and every one-key change', async () => {
    let compared = 0;
    for (const { entity, entry } of await exampleEntities()) {
      const live = { ...entity.data, creatorID: 'someone', creatorEmail: 'someone@example.com', version: 3, permalink: 'x' };
      for (const value of [entity.data, live, ...mutations(entity.data), ...mutations(live)]) {
        for (const desired of [undefined, null, {}, entity.data]) {
          expect(JSON.stringify(canonical(entry, value, desired))).toBe(JSON.stringify(canonicalReference(entry, value, desired)));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});

/** The alignment of normalizeLive as first written: every list and item copied. The reference the copy-on-write one is tested against. */
function alignListReference(live: unknown[], desired: unknown): unknown[] {
  const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
  const alignItems = (item: JsonObject, counterpart: unknown, drop?: readonly string[]): JsonObject => {
    const out: JsonObject = {};
    for (const key in item) {
      if (drop !== undefined && drop.includes(key)) continue;
      const v = item[key];
      out[key] = Array.isArray(v) ? alignListReference(v, isObject(counterpart) ? counterpart[key] : undefined) : v;
    }
    return out;
  };
  const byName = new Map<string, unknown>();
  if (Array.isArray(desired)) for (const d of desired) if (itemKey(d) !== undefined) byName.set(itemKey(d) as string, d);
  return live.map((item, i) => {
    if (!isObject(item)) return item;
    const name = itemKey(item);
    const counterpart = name !== undefined ? byName.get(name) : Array.isArray(desired) ? desired[i] : undefined;
    return alignItems(item, counterpart, name === undefined ? undefined : generatedToDrop(counterpart));
  });
}

describe('normalizeLive (lists aligned copy-on-write)', () => {
  it('gives what copying every list and item gives, and never changes the read, for every example entity and every one-key change', async () => {
    let compared = 0;
    for (const { entity, entry } of await exampleEntities()) {
      // A read: generated ids on every named item at any depth, as the console gives them.
      const withIds = (value: unknown): unknown =>
        Array.isArray(value)
          ? value.map((item, i) => (typeof item === 'object' && item !== null && !Array.isArray(item) && typeof (item as JsonObject)['name'] === 'string' ? { id: `g${i}`, baseID: `g${i}`, ...Object.fromEntries(Object.entries(item).map(([k, v]) => [k, withIds(v)])) } : withIds(item)))
          : typeof value === 'object' && value !== null
            ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIds(v)]))
            : value;
      const live = { ...(withIds(entity.data) as JsonObject), creatorID: 'someone', version: 3 };
      const desiredForms = [undefined, normalizeLive(entry, entity.data), withIds(entity.data) as JsonObject];
      for (const value of [live, ...mutations(live)]) {
        for (const desired of desiredForms) {
          const before = JSON.stringify(value);
          const got = normalizeLive(entry, value, desired);
          const expected = canonical(entry, value, desired ?? null);
          for (const key of Object.keys(expected)) {
            const v = expected[key];
            if (Array.isArray(v)) expected[key] = alignListReference(v, desired?.[key]);
          }
          // The archived mark is normalizeLive's own addition: compare the rest.
          delete (got as JsonObject)['archived'];
          delete expected['archived'];
          expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
          expect(JSON.stringify(value)).toBe(before);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});
