import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { canonical, canonicalReference } from '../core/normalize.js';
import type { JsonObject } from '../core/repo-entity.js';
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

describe('canonical (compiled per kind)', () => {
  it('gives what the interpreted form gives, key order included, for every example entity and every one-key change', async () => {
    const repo = await loadRepo(new FsRepoReader(EXAMPLE));
    expect(repo.entities.length).toBeGreaterThan(10);
    let compared = 0;
    for (const entity of repo.entities) {
      const entry = ENTITY_SCHEMAS.find((e) => e.folder === entity.folder);
      if (!entry) throw new Error(entity.folder);
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
