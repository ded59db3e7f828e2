import { parseJson5 } from '../fast-json5.js';
import type { JsonObject, RepoEntity } from '../repo-entity.js';
import type { CompileSource } from './compile-config-specs.js';

/**
 * The compile input from a repository's entities, as the console would store them: each JSON5 twin
 * (`returnValueJson5`, `defaultValueJson5`, …) stands for the value it names when that value is
 * not given. Files carry no creation times, so a global holdout holds out no gate here (the console
 * holds out gates created after the holdout).
 */
export function compileSourceOfFiles(entities: readonly RepoEntity[]): CompileSource {
  const source: CompileSource = { gates: [], dynamicConfigs: [], segments: [], experiments: [], layers: [], holdouts: [] };
  const lists: Record<string, JsonObject[]> = {
    gate: source.gates as JsonObject[],
    dynamic_config: source.dynamicConfigs as JsonObject[],
    segment: source.segments as JsonObject[],
    experiment: source.experiments as JsonObject[],
    layer: source.layers as JsonObject[],
    holdout: source.holdouts as JsonObject[],
  };
  for (const e of entities) lists[e.kind]?.push({ ...(resolveTwins(e.data) as JsonObject), id: e.id });
  return source;
}

function resolveTwins(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveTwins);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = resolveTwins(v);
  for (const [k, v] of Object.entries(value)) {
    if (!k.endsWith('Json5') || typeof v !== 'string') continue;
    const plain = k.slice(0, -'Json5'.length);
    if (out[plain] !== undefined && out[plain] !== null) continue;
    try {
      out[plain] = parseJson5(v);
    } catch {
      // validate reports a twin that does not parse; evaluation goes on without the value.
    }
  }
  return out;
}
