import type { ConfigSpecs } from './config-spec-types.js';
import type { EvaluationContext, SpecEvaluator } from './evaluate-spec.js';
import type { Evaluation } from './evaluation.js';

/**
 * Flag keys: how OFREP, `flagops eval` and the console's "try it" name what they evaluate. A flag
 * key is the entity's id; where two kinds share an id, `gates/ID`, `dynamic_configs/ID`,
 * `experiments/ID` or `layers/ID` names one (the console API's collection names), and the bare id
 * is an error naming both. Segments and holdouts are not flags (they answer inside rules).
 */

export type FlagKind = 'gate' | 'dynamic_config' | 'experiment' | 'layer';

export const FLAG_KIND_PREFIXES: Readonly<Record<FlagKind, string>> = {
  gate: 'gates',
  dynamic_config: 'dynamic_configs',
  experiment: 'experiments',
  layer: 'layers',
};

const KIND_BY_PREFIX = new Map<string, FlagKind>(
  (Object.entries(FLAG_KIND_PREFIXES) as [FlagKind, string][]).flatMap(([kind, prefix]) => [[prefix, kind], [kind, kind]]),
);

export interface FlagRef {
  kind: FlagKind;
  id: string;
}

export type FlagLookup = { found: FlagRef } | { error: 'not_found' | 'ambiguous'; message: string };

/** The flags of compiled specs, by id. */
export class FlagIndex {
  private readonly byId = new Map<string, FlagRef[]>();

  constructor(specs: ConfigSpecs) {
    const add = (kind: FlagKind, id: string): void => {
      const refs = this.byId.get(id);
      if (refs) refs.push({ kind, id });
      else this.byId.set(id, [{ kind, id }]);
    };
    for (const g of specs.feature_gates) if (g.entity === 'feature_gate') add('gate', g.name);
    for (const c of specs.dynamic_configs) {
      if (c.entity === 'dynamic_config') add('dynamic_config', c.name);
      else if (c.entity === 'experiment') add('experiment', c.name);
    }
    for (const l of specs.layer_configs) add('layer', l.name);
  }

  private listed: readonly { key: string; ref: FlagRef }[] | undefined;

  /** Every flag with the key a client uses for it: the id, or the prefixed form where ids are shared (listed once). */
  all(): readonly { key: string; ref: FlagRef }[] {
    if (this.listed === undefined) {
      const out: { key: string; ref: FlagRef }[] = [];
      for (const [id, refs] of this.byId) {
        for (const ref of refs) out.push({ key: refs.length === 1 ? id : prefixedKey(ref), ref });
      }
      this.listed = out;
    }
    return this.listed;
  }

  lookup(key: string): FlagLookup {
    const slash = key.indexOf('/');
    if (slash > 0) {
      const kind = KIND_BY_PREFIX.get(key.slice(0, slash));
      const id = key.slice(slash + 1);
      if (kind !== undefined) {
        const ref = this.byId.get(id)?.find((r) => r.kind === kind);
        return ref ? { found: ref } : { error: 'not_found', message: `No ${kind.replace('_', ' ')} '${id}' is visible to this key.` };
      }
    }
    const refs = this.byId.get(key);
    if (refs === undefined || refs.length === 0) return { error: 'not_found', message: `Flag '${key}' was not found.` };
    if (refs.length > 1) {
      return { error: 'ambiguous', message: `'${key}' names ${refs.length} flags: ${refs.map(prefixedKey).join(' and ')}; use one of those keys.` };
    }
    return { found: refs[0] as FlagRef };
  }
}

export function prefixedKey(ref: FlagRef): string {
  return `${FLAG_KIND_PREFIXES[ref.kind]}/${ref.id}`;
}

/** Evaluates a flag; the answer's value is the flag's: a gate's boolean, else the config, group or layer parameters. */
export function evaluateFlag(evaluator: SpecEvaluator, ref: FlagRef, user: Parameters<SpecEvaluator['checkGate']>[1], ctx?: EvaluationContext): { evaluation: Evaluation; value: unknown } {
  switch (ref.kind) {
    case 'gate': {
      const evaluation = evaluator.checkGate(ref.id, user, ctx);
      return { evaluation, value: evaluation.value };
    }
    case 'layer': {
      const evaluation = evaluator.getLayer(ref.id, user, ctx);
      return { evaluation, value: evaluation.jsonValue };
    }
    default: {
      const evaluation = evaluator.getConfig(ref.id, user, ctx);
      return { evaluation, value: evaluation.jsonValue };
    }
  }
}
