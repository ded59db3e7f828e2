import type { JsonObject } from '../repo-entity.js';
import type { ConfigSpec, ConfigSpecs, SpecCondition, SpecRule } from './config-spec-types.js';
import { compileConditions } from './compile-conditions.js';
import { environmentConditions, environmentScope, tierCondition, type EnvironmentScope } from './environment-scope.js';
import { LAYER_BUCKETS, layerBuckets, ownBuckets } from './layer-buckets.js';
import { entitySalt, gateSpecName, holdoutSpecName, segmentSpecName, targetingSpecName } from './spec-names.js';
import { ruleIdFromName } from '../rule-id.js';
import { isPlainObject } from '../is-plain-object.js';

/** The stored entities to compile (each a console entity's data, `id` included). */
export interface CompileSource {
  gates: readonly JsonObject[];
  dynamicConfigs: readonly JsonObject[];
  segments: readonly JsonObject[];
  experiments: readonly JsonObject[];
  layers: readonly JsonObject[];
  holdouts: readonly JsonObject[];
}

/** Whom the specs are for: an SDK key's environments and target apps (primary first), both empty for no limit. */
export interface CompileOptions {
  environments: readonly string[];
  targetApps: readonly string[];
  /** The `time` of the specs: when their data last changed. */
  time: number;
}

/** The environment experiments run in unless `enabledNonProdEnvironments` names another (Statsig's tier). */
export const PRODUCTION = 'production';

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const list = <T = unknown>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);
const objects = (value: unknown): JsonObject[] => list(value).filter(isPlainObject);
const object = (value: unknown): JsonObject => (isPlainObject(value) ? value : {});
const idTypeOf = (entity: JsonObject): string => str(entity['idType']) ?? 'userID';
const idOf = (entity: JsonObject): string => String(entity['id']);

function rule(fields: Omit<SpecRule, 'salt' | 'name'> & { salt?: string; name?: string }): SpecRule {
  return { name: fields.name ?? fields.id, salt: fields.salt ?? '', ...fields };
}

const condition = (type: string, targetValue: unknown, idType: string, extra: Partial<SpecCondition> = {}): SpecCondition => ({
  type,
  targetValue,
  operator: null,
  field: null,
  additionalValues: {},
  idType,
  ...extra,
});

/** The units whose id is listed: exact ids (no case folding), matched on the unit type `idType`. */
const idCondition = (idType: string, ids: readonly string[]): SpecCondition => condition('unit_id', [...ids], idType, { operator: 'any_case_sensitive' });
const passGate = (name: string, idType: string): SpecCondition => condition('pass_gate', name, idType);
const failGate = (name: string, idType: string): SpecCondition => condition('fail_gate', name, idType);
const bucketCondition = (operator: string, targetValue: unknown, salt: string, idType: string): SpecCondition =>
  condition('user_bucket', targetValue, idType, { operator, additionalValues: { salt } });

const isArchived = (entity: JsonObject): boolean => entity['status'] === 'Archived' || entity['status'] === 'archived';

/** A rule's stable identity: its id, or (in files that state none) its name. */
/** The rule's id; a rule from a file that states none gets the one the console derives from its name. */
const ruleKey = (r: JsonObject, index: number): string => {
  const name = str(r['name']);
  return str(r['id']) ?? (name !== undefined ? ruleIdFromName(name) : `rule-${index}`);
};

const COMMA = Buffer.from(',');

/** A compiled spec and, once asked for, its JSON (UTF-8). */
interface Compiled {
  spec: ConfigSpec;
  json?: Buffer;
}

/**
 * Specs compiled earlier, by the entity object they were compiled from: a store that hands out the
 * same frozen object for an entity until it is written (SQLite's kind lists) lets a compilation after
 * one write reuse every other gate, config and segment, and their JSON, as they were. Entities are
 * never mutated (the store freezes them), so an object's spec can't go stale; what else goes into
 * a spec (the environment scope, the holdouts) is part of the lookup.
 */
export class SpecMemo {
  private readonly byEntity = new WeakMap<object, Map<string, Compiled>>();
  private readonly serials = new WeakMap<object, number>();
  private nextSerial = 0;

  /** A number of this object's own, for lookups that depend on several objects (the holdouts). */
  serial(entity: object): number {
    let serial = this.serials.get(entity);
    if (serial === undefined) this.serials.set(entity, (serial = ++this.nextSerial));
    return serial;
  }

  get(entity: object, context: string): Compiled | undefined {
    return this.byEntity.get(entity)?.get(context);
  }

  set(entity: object, context: string, compiled: Compiled): void {
    let contexts = this.byEntity.get(entity);
    if (contexts === undefined) this.byEntity.set(entity, (contexts = new Map()));
    // One per key scope polling; a bound keeps a flood of scopes from growing it.
    if (contexts.size >= 64) contexts.clear();
    contexts.set(context, compiled);
  }
}

class Compiler {
  private readonly scope: EnvironmentScope;
  private readonly layersById: Map<string, JsonObject>;
  private readonly scopeKey: string;
  private holdoutStamp: string | undefined;
  private readonly layerStamps = new Map<string, string>();
  private byLayer: Map<string, JsonObject[]> | undefined;

  /** Every experiment of a layer (archived and invisible ones too), in creation order. */
  private experimentsOf(layerId: string): readonly JsonObject[] {
    return this.experimentsByLayer().get(layerId) ?? [];
  }

  private experimentsByLayer(): Map<string, JsonObject[]> {
    if (this.byLayer === undefined) {
      this.byLayer = new Map();
      for (const e of this.source.experiments) {
        const id = str(e['layerID']);
        if (id === undefined) continue;
        const list = this.byLayer.get(id);
        if (list) list.push(e);
        else this.byLayer.set(id, [e]);
      }
    }
    return this.byLayer;
  }

  constructor(
    private readonly source: CompileSource,
    private readonly options: CompileOptions,
    private readonly memo?: SpecMemo,
  ) {
    this.scope = environmentScope(options.environments);
    this.layersById = new Map(source.layers.map((l) => [idOf(l), l]));
    this.scopeKey = JSON.stringify(this.scope);
  }

  /**
   * The spec of an entity, from the memo when it was compiled before in the same context: the
   * scope, the holdouts, and `extra` (for an experiment or a layer, the layer and its experiments).
   */
  private memoized(entity: JsonObject, extra: string, build: (entity: JsonObject) => ConfigSpec): Compiled {
    const memo = this.memo;
    if (memo === undefined) return { spec: build(entity) };
    // One string for every entity without `extra` (nearly all): no new key per lookup.
    const context = extra === '' ? this.context() : `${this.context()}|${extra}`;
    const known = memo.get(entity, context);
    if (known) return known;
    const compiled = { spec: build(entity) };
    memo.set(entity, context, compiled);
    return compiled;
  }

  private context(): string {
    const memo = this.memo;
    if (memo === undefined) return '';
    this.holdoutStamp ??= `${this.scopeKey}|${this.source.holdouts.map((h) => memo.serial(h)).join(',')}`;
    return this.holdoutStamp;
  }

  /** What an experiment or layer of the layer depends on besides itself: the layer and all its experiments. */
  private layerStamp(layerId: unknown): string {
    const memo = this.memo;
    if (memo === undefined || typeof layerId !== 'string') return '';
    let stamp = this.layerStamps.get(layerId);
    if (stamp === undefined) {
      const layer = this.layersById.get(layerId);
      const members = this.experimentsOf(layerId);
      stamp = `${layer ? memo.serial(layer) : 0}:${members.map((e) => memo.serial(e)).join(',')}`;
      this.layerStamps.set(layerId, stamp);
    }
    return stamp;
  }

  /** An experiment's spec and its inline-targeting gate, from the memo when nothing they depend on changed. */
  private memoizedExperiment(experiment: JsonObject, buckets: ReadonlyMap<string, readonly number[]>): { spec: Compiled; targeting: Compiled | undefined } {
    let targeting: ConfigSpec | undefined;
    const extra = this.layerStamp(experiment['layerID']);
    const spec = this.memoized(experiment, extra, (e) => {
      const compiled = this.experiment(e, buckets);
      targeting = compiled.targeting;
      return compiled.spec;
    });
    if (targeting !== undefined) {
      const made = { spec: targeting };
      this.memo?.set(experiment, `${this.context()}|${extra}|targeting`, made);
      return { spec, targeting: made };
    }
    return { spec, targeting: this.memo?.get(experiment, `${this.context()}|${extra}|targeting`) };
  }

  /** Whether an SDK key of the target apps sees the entity: an entity without target apps is every app's. */
  private visible(entity: JsonObject): boolean {
    if (isArchived(entity)) return false;
    const keyApps = this.options.targetApps;
    if (keyApps.length === 0) return true;
    const apps = list<string>(entity['targetApps']);
    return apps.length === 0 || apps.some((app) => keyApps.includes(app));
  }

  /** The environment conditions of something limited to `environments`, or undefined when it is out of scope. */
  private env(environments: unknown, idType: string): SpecCondition[] | undefined {
    return environmentConditions(environments, this.scope, idType);
  }

  private envOf(environment: unknown, idType: string): SpecCondition[] | undefined {
    const name = str(environment);
    return this.env(name === undefined ? null : [name], idType);
  }

  /** Enabled holdouts that apply to an entity (as the console's `holdoutIDs` computes them). */
  private holdoutsFor(kind: 'gate' | 'experiment' | 'layer', entity: JsonObject): JsonObject[] {
    const id = idOf(entity);
    return this.source.holdouts.filter((h) => {
      if (h['isEnabled'] === false) return false;
      const names = (field: string, value: unknown): boolean => typeof value === 'string' && list(h[field]).includes(value);
      if (kind === 'gate') {
        if (names('gateIDs', id)) return true;
        const gateCreated = entity['createdTime'];
        const holdoutCreated = h['createdTime'];
        return h['isGlobal'] === true && typeof gateCreated === 'number' && typeof holdoutCreated === 'number' && gateCreated >= holdoutCreated;
      }
      if (kind === 'experiment') return names('experimentIDs', id) || names('layerIDs', entity['layerID']);
      return names('layerIDs', id);
    });
  }

  /** Rules sending units a holdout holds out to `returnValue` (a gate: failing). */
  private holdoutRules(kind: 'gate' | 'experiment' | 'layer', entity: JsonObject, returnValue: unknown): SpecRule[] {
    const idType = idTypeOf(entity);
    return this.holdoutsFor(kind, entity).map((h) => {
      const name = holdoutSpecName(idOf(h));
      return rule({ id: name, passPercentage: kind === 'gate' ? 0 : 100, conditions: [passGate(name, idType)], returnValue, idType });
    });
  }

  /** A gate or segment rule. */
  private gateRule(r: JsonObject, index: number, idType: string): SpecRule | undefined {
    const env = this.env(r['environments'], idType);
    if (env === undefined) return undefined;
    const id = ruleKey(r, index);
    return rule({
      id,
      name: str(r['name']) ?? id,
      salt: id,
      passPercentage: typeof r['passPercentage'] === 'number' ? r['passPercentage'] : 0,
      conditions: [...env, ...compileConditions(r['conditions'], idType)],
      returnValue: true,
      idType,
    });
  }

  private gateRules(rules: unknown, idType: string): SpecRule[] {
    return objects(rules).flatMap((r, i) => this.gateRule(r, i, idType) ?? []);
  }

  /** A gate's overrides: per environment first, then everywhere; passing before failing. */
  private gateOverrideRules(gate: JsonObject): SpecRule[] {
    const overrides = object(gate['overrides']);
    const idType = idTypeOf(gate);
    const rules: SpecRule[] = [];
    const add = (passes: boolean, where: string, ids: unknown, unitType: string, env: SpecCondition[]): void => {
      const listed = list(ids).filter((id): id is string => typeof id === 'string');
      if (listed.length === 0) return;
      rules.push(
        rule({ id: `${passes ? 'pass' : 'fail'}:${where}:${unitType}:id_override`, passPercentage: passes ? 100 : 0, conditions: [...env, idCondition(unitType, listed)], returnValue: true, idType }),
      );
    };
    for (const entry of objects(overrides['environmentOverrides'])) {
      const env = this.envOf(entry['environment'], idType);
      if (env === undefined) continue;
      const unitType = str(entry['unitID']) ?? idType;
      const where = str(entry['environment']) ?? 'all';
      add(true, where, entry['passingIDs'], unitType, env);
      add(false, where, entry['failingIDs'], unitType, env);
    }
    add(true, 'all', overrides['passingUserIDs'], 'userID', []);
    add(true, 'all', overrides['passingCustomIDs'], idType, []);
    add(false, 'all', overrides['failingUserIDs'], 'userID', []);
    add(false, 'all', overrides['failingCustomIDs'], idType, []);
    return rules;
  }

  gate(gate: JsonObject): ConfigSpec {
    const id = idOf(gate);
    const idType = idTypeOf(gate);
    return {
      name: gateSpecName(id),
      type: 'feature_gate',
      salt: entitySalt('gate', id),
      enabled: gate['isEnabled'] !== false,
      defaultValue: false,
      idType,
      rules: [...this.gateOverrideRules(gate), ...this.holdoutRules('gate', gate, true), ...this.gateRules(gate['rules'], idType)],
      entity: 'feature_gate',
      targetAppIDs: list<string>(gate['targetApps']),
    };
  }

  segment(segment: JsonObject): ConfigSpec {
    const id = idOf(segment);
    const idType = idTypeOf(segment);
    const ids = list(segment['ids']).filter((v): v is string => typeof v === 'string');
    const rules =
      segment['type'] === 'id_list'
        ? ids.length === 0
          ? []
          : [rule({ id: 'id_list', passPercentage: 100, conditions: [idCondition(idType, ids)], returnValue: true, idType })]
        : this.gateRules(segment['rules'], idType);
    return { name: segmentSpecName(id), type: 'feature_gate', salt: entitySalt('segment', id), enabled: true, defaultValue: false, idType, rules, entity: 'segment' };
  }

  holdout(holdout: JsonObject): ConfigSpec {
    const id = idOf(holdout);
    const idType = idTypeOf(holdout);
    const targeting = str(holdout['targetingGateID']);
    return {
      name: holdoutSpecName(id),
      type: 'feature_gate',
      salt: entitySalt('holdout', id),
      enabled: holdout['isEnabled'] !== false,
      defaultValue: false,
      idType,
      rules: [
        rule({
          id: 'holdout',
          salt: 'holdout',
          passPercentage: typeof holdout['passPercentage'] === 'number' ? holdout['passPercentage'] : 0,
          conditions: [targeting === undefined ? condition('public', null, idType) : passGate(gateSpecName(targeting), idType)],
          returnValue: true,
          idType,
        }),
      ],
      entity: 'holdout',
      targetAppIDs: list<string>(holdout['targetApps']),
    };
  }

  /**
   * A dynamic-config rule. Variants split the rule's passing units by bucket: one rule per variant
   * (its bucket range as two user_bucket conditions), then the rule itself at 0% so units matching
   * its conditions outside every range get the default rather than falling through to later rules.
   */
  private configRules(r: JsonObject, index: number, idType: string, salt: string): SpecRule[] {
    const env = this.env(r['environments'], idType);
    if (env === undefined) return [];
    const id = ruleKey(r, index);
    const name = str(r['name']) ?? id;
    const conditions = [...env, ...compileConditions(r['conditions'], idType)];
    const passPercentage = typeof r['passPercentage'] === 'number' ? r['passPercentage'] : 0;
    const variants = objects(r['variants']);
    if (variants.length === 0) return [rule({ id, name, salt: id, passPercentage, conditions, returnValue: object(r['returnValue']), idType })];
    const bucketSalt = `${salt}.${id}`;
    let cumulative = 0;
    const rules = variants.map((v, i) => {
      const low = Math.round((passPercentage * cumulative * LAYER_BUCKETS) / 10000);
      cumulative += typeof v['passPercentage'] === 'number' ? v['passPercentage'] : 0;
      const high = Math.round((passPercentage * cumulative * LAYER_BUCKETS) / 10000);
      const variantId = `${id}:${str(v['id']) ?? str(v['name']) ?? String(i)}`;
      return rule({
        id: variantId,
        name: `${name}: ${str(v['name']) ?? String(i)}`,
        salt: variantId,
        passPercentage: 100,
        conditions: [...conditions, bucketCondition('gte', low, bucketSalt, idType), bucketCondition('lt', high, bucketSalt, idType)],
        returnValue: object(v['returnValue']),
        idType,
        groupName: str(v['name']) ?? null,
      });
    });
    return [...rules, rule({ id, name, salt: id, passPercentage: 0, conditions, returnValue: {}, idType })];
  }

  dynamicConfig(config: JsonObject): ConfigSpec {
    const id = idOf(config);
    const idType = idTypeOf(config);
    const salt = entitySalt('dynamic_config', id);
    return {
      name: id,
      type: 'dynamic_config',
      salt,
      enabled: config['isEnabled'] !== false,
      defaultValue: object(config['defaultValue']),
      idType,
      rules: objects(config['rules']).flatMap((r, i) => this.configRules(r, i, idType, salt)),
      entity: 'dynamic_config',
      targetAppIDs: list<string>(config['targetApps']),
    };
  }

  /** A layer's parameters as served when no experiment assigns the unit: defaults, then the groups shipped from it, oldest decision first. */
  layerDefaults(layer: JsonObject, experiments: readonly JsonObject[]): JsonObject {
    const values: JsonObject = {};
    for (const p of objects(layer['parameters'])) if (typeof p['name'] === 'string') values[p['name']] = p['defaultValue'];
    const shipped = experiments
      .filter((e) => e['status'] === 'decision_made' && e['layerID'] === layer['id'])
      .sort((a, b) => Number(a['decisionTime'] ?? 0) - Number(b['decisionTime'] ?? 0));
    for (const e of shipped) {
      const launched = groupOf(e, e['launchedGroupID']);
      if (launched) Object.assign(values, object(launched['parameterValues']));
    }
    return values;
  }

  /** Rules forcing ids or gate/segment passers into an experiment's group; `delegate` set for a layer's rules. */
  private forcedRules(experiment: JsonObject, layer: JsonObject | undefined, params: (group: JsonObject) => JsonObject, delegate: boolean): SpecRule[] {
    const expId = idOf(experiment);
    const idType = idTypeOf(experiment);
    const rules: SpecRule[] = [];
    const configDelegate = delegate ? expId : undefined;
    const forced = (id: string, group: JsonObject, conditions: SpecCondition[]): void => {
      rules.push(rule({ id, passPercentage: 100, conditions, returnValue: params(group), idType, groupName: str(group['name']) ?? null, ...(configDelegate ? { configDelegate } : {}) }));
    };
    const idOverrides = [
      ...objects(layer?.['idOverrides'])
        .filter((o) => (str(o['experimentName']) ?? experimentOfGroup(this.experimentsOf(idOf(layer as JsonObject)), layer, o['groupName'])) === expId)
        .map((o) => ({ group: o['groupName'], ids: o['ids'], unitType: str(o['idType']), environment: o['environment'] })),
      ...objects(experiment['userIDOverrides']).map((o) => ({ group: o['groupID'], ids: o['ids'], unitType: str(o['unitType']), environment: o['environment'] })),
    ];
    for (const o of idOverrides) {
      const group = groupOf(experiment, o.group);
      const env = this.envOf(o.environment, idType);
      const ids = list(o.ids).filter((v): v is string => typeof v === 'string');
      if (!group || env === undefined || ids.length === 0) continue;
      const unitType = o.unitType ?? idType;
      forced(`${groupKey(group)}:${unitType}:${str(o.environment) ?? 'all'}:id_override`, group, [...env, idCondition(unitType, ids)]);
    }
    const conditional = [
      ...objects(layer?.['conditionalOverrides'])
        .filter((o) => o['experimentName'] === expId)
        .map((o) => ({ type: o['type'], ref: o['name'], group: o['groupName'], environment: undefined as unknown })),
      ...objects(experiment['overrides']).map((o) => ({ type: o['type'], ref: o['id'], group: o['groupID'], environment: o['environment'] })),
    ];
    for (const o of conditional) {
      const group = groupOf(experiment, o.group);
      const ref = str(o.ref);
      const env = this.envOf(o.environment, idType);
      if (!group || ref === undefined || env === undefined) continue;
      const name = o.type === 'segment' ? segmentSpecName(ref) : gateSpecName(ref);
      forced(`${groupKey(group)}:${String(o.type)}:${ref}:${str(o.environment) ?? 'all'}:override`, group, [...env, passGate(name, idType)]);
    }
    return rules;
  }

  /** Rules keeping an experiment to production and the non-production environments it names. */
  private environmentRules(experiment: JsonObject, returnValue: unknown): SpecRule[] {
    const idType = idTypeOf(experiment);
    const enabled = [PRODUCTION, ...list<string>(experiment['enabledNonProdEnvironments']).filter((e) => typeof e === 'string')];
    if (this.scope.fixed !== null) {
      return enabled.includes(this.scope.fixed) ? [] : [rule({ id: 'environment', passPercentage: 100, conditions: [condition('public', null, idType)], returnValue, idType })];
    }
    // A unit evaluated without an environment is in production, as the SDK has it.
    const named = condition('environment_field', [''], idType, { field: 'tier', operator: 'str_starts_with_any' });
    return [rule({ id: 'environment', passPercentage: 100, conditions: [named, tierCondition('none', enabled, idType)], returnValue, idType })];
  }

  experiment(experiment: JsonObject, buckets: ReadonlyMap<string, readonly number[]>): { spec: ConfigSpec; targeting: ConfigSpec | undefined } {
    const id = idOf(experiment);
    const idType = idTypeOf(experiment);
    const salt = entitySalt('experiment', id);
    const layerId = str(experiment['layerID']);
    const layer = layerId === undefined ? undefined : this.layersById.get(layerId);
    const groups = objects(experiment['groups']);
    const layerValues = layer ? this.layerDefaults(layer, this.experimentsOf(idOf(layer))) : undefined;
    const params = (group: JsonObject): JsonObject => ({ ...(layerValues ?? {}), ...object(group['parameterValues']) });
    const control = groupOf(experiment, experiment['controlGroupID']) ?? groups[0];
    const defaultValue = layerValues ?? (control ? params(control) : {});
    const status = experiment['status'];
    const rules: SpecRule[] = [...this.forcedRules(experiment, layer, params, false), ...this.holdoutRules('experiment', experiment, defaultValue)];
    const fallback = (ruleId: string): SpecRule => rule({ id: ruleId, passPercentage: 100, conditions: [condition('public', null, idType)], returnValue: defaultValue, idType });
    let targeting: ConfigSpec | undefined;
    if (status === 'decision_made') {
      const launched = groupOf(experiment, experiment['launchedGroupID']);
      rules.push(
        launched
          ? rule({ id: 'launchedGroup', passPercentage: 100, conditions: [condition('public', null, idType)], returnValue: params(launched), idType, groupName: str(launched['name']) ?? null })
          : fallback('launchedGroup'),
      );
    } else if (status === 'active') {
      rules.push(...this.environmentRules(experiment, defaultValue));
      if (layer) {
        rules.push(rule({ id: 'layerAssignment', passPercentage: 100, conditions: [bucketCondition('none', buckets.get(id) ?? [], entitySalt('layer', idOf(layer)), idType)], returnValue: defaultValue, idType }));
      } else {
        const allocation = typeof experiment['allocation'] === 'number' ? experiment['allocation'] : 100;
        const assignment = allocation >= 100 ? bucketCondition('any', [-1], `${salt}.allocation`, idType) : bucketCondition('none', ownBuckets(id, allocation), `${salt}.allocation`, idType);
        rules.push(rule({ id: 'layerAssignment', passPercentage: 100, conditions: [assignment], returnValue: defaultValue, idType }));
      }
      const targetingGate = str(experiment['targetingGateID']);
      if (targetingGate !== undefined) {
        rules.push(rule({ id: 'targetingGate', passPercentage: 100, conditions: [failGate(gateSpecName(targetingGate), idType)], returnValue: defaultValue, idType }));
      }
      const inline = objects(experiment['inlineTargetingRules']);
      if (inline.length > 0) {
        const name = targetingSpecName(id);
        targeting = { name, type: 'feature_gate', salt: entitySalt('experiment-targeting', id), enabled: true, defaultValue: false, idType, rules: this.gateRules(inline, idType), entity: 'segment' };
        rules.push(rule({ id: 'inlineTargetingRules', passPercentage: 100, conditions: [failGate(name, idType)], returnValue: defaultValue, idType }));
      }
      let cumulative = 0;
      for (const group of groups) {
        cumulative += typeof group['size'] === 'number' ? group['size'] : 0;
        const key = groupKey(group);
        const disabled = group['disabled'] === true;
        rules.push(
          rule({
            id: key,
            salt: key,
            passPercentage: 100,
            conditions: [bucketCondition('lt', Math.round((cumulative * LAYER_BUCKETS) / 100), salt, idType)],
            returnValue: disabled ? defaultValue : params(group),
            idType,
            groupName: str(group['name']) ?? null,
            isExperimentGroup: !disabled,
          }),
        );
      }
    } else {
      rules.push(fallback(status === 'abandoned' ? 'abandoned' : 'prestart'));
    }
    const explicit = layer ? [...new Set(groups.flatMap((g) => Object.keys(object(g['parameterValues']))))] : null;
    const spec: ConfigSpec = {
      name: id,
      type: 'dynamic_config',
      salt,
      enabled: true,
      defaultValue,
      idType,
      rules,
      entity: 'experiment',
      // Where the key leaves the environment to the SDK, the experiment may run: the SDK's tier decides per unit.
      isActive: status === 'active' && (this.scope.fixed === null || this.environmentRules(experiment, null).length === 0),
      hasSharedParams: layer !== undefined,
      explicitParameters: explicit,
      targetAppIDs: list<string>(experiment['targetApps']),
    };
    return { spec, targeting };
  }

  layer(layer: JsonObject, experiments: readonly JsonObject[], buckets: ReadonlyMap<string, readonly number[]>): ConfigSpec {
    const id = idOf(layer);
    const idType = idTypeOf(layer);
    const salt = entitySalt('layer', id);
    const defaultValue = this.layerDefaults(layer, this.experimentsOf(idOf(layer)));
    const rules: SpecRule[] = [];
    for (const experiment of experiments) {
      const params = (group: JsonObject): JsonObject => ({ ...defaultValue, ...object(group['parameterValues']) });
      rules.push(...this.forcedRules(experiment, layer, params, true));
    }
    rules.push(...this.holdoutRules('layer', layer, defaultValue));
    for (const experiment of experiments) {
      if (experiment['status'] !== 'active') continue;
      const expId = idOf(experiment);
      rules.push(
        rule({
          id: `experimentAssignment:${expId}`,
          passPercentage: 100,
          conditions: [bucketCondition('any', buckets.get(expId) ?? [], salt, idType)],
          returnValue: defaultValue,
          idType,
          configDelegate: expId,
        }),
      );
    }
    return { name: id, type: 'dynamic_config', salt, enabled: true, defaultValue, idType, rules, entity: 'layer', targetAppIDs: list<string>(layer['targetApps']) };
  }

  /**
   * Layer buckets of every layer's started experiments. Archived experiments count too: an
   * experiment archived after it concluded held its buckets while it ran.
   */
  private bucketsByLayer(): Map<string, readonly number[]> {
    const byLayer = this.experimentsByLayer();
    const all = new Map<string, readonly number[]>();
    for (const experiments of byLayer.values()) {
      const claims = experiments.map((e) => {
        const started = e['status'] !== 'setup' && (e['status'] !== 'archived' || e['statusBeforeArchive'] !== 'setup');
        const startTime = typeof e['startTime'] === 'number' ? e['startTime'] : started ? Number(e['createdTime'] ?? 0) : undefined;
        const concluded = e['status'] !== 'active' && started;
        const endTime = typeof e['endTime'] === 'number' ? e['endTime'] : concluded ? startTime : undefined;
        return { id: idOf(e), allocation: typeof e['allocation'] === 'number' ? e['allocation'] : 0, startTime, endTime, userBuckets: list<number>(e['userBuckets']) };
      });
      for (const [expId, buckets] of layerBuckets(claims)) all.set(expId, buckets);
    }
    return all;
  }

  compile(): { specs: ConfigSpecs; json: () => Buffer } {
    const { source, options } = this;
    const buckets = this.bucketsByLayer();
    const experiments = source.experiments.filter((e) => this.visible(e));
    const compiledExperiments = experiments.map((e) => this.memoizedExperiment(e, buckets));
    const fresh = (spec: ConfigSpec): Compiled => ({ spec });
    const gates: Compiled[] = [
      ...source.gates.filter((g) => this.visible(g)).map((g) => this.memoized(g, '', (e) => this.gate(e))),
      // Segments and holdouts serve every app: the gates and experiments that use them are what a key's apps limit.
      ...source.segments.filter((s) => !isArchived(s)).map((s) => this.memoized(s, '', (e) => this.segment(e))),
      ...compiledExperiments.flatMap((c) => (c.targeting ? [c.targeting] : [])),
      ...source.holdouts.map((h) => fresh(this.holdout(h))),
    ];
    const configs: Compiled[] = [
      ...source.dynamicConfigs.filter((c) => this.visible(c)).map((c) => this.memoized(c, '', (e) => this.dynamicConfig(e))),
      ...compiledExperiments.map((c) => c.spec),
    ];
    const layers: Record<string, string[]> = {};
    const layerConfigs: Compiled[] = [];
    for (const layer of source.layers) {
      if (!this.visible(layer)) continue;
      const members = experiments.filter((e) => e['layerID'] === layer['id']);
      layers[idOf(layer)] = members.map(idOf);
      // Its members as this key sees them: the visible ones, which the stamp's full list decides.
      layerConfigs.push(this.memoized(layer, `${this.layerStamp(layer['id'])}|${members.map(idOf).join(',')}`, (l) => this.layer(l, members, buckets)));
    }
    const specs: ConfigSpecs = {
      has_updates: true,
      time: options.time,
      feature_gates: gates.map((c) => c.spec),
      dynamic_configs: configs.map((c) => c.spec),
      layer_configs: layerConfigs.map((c) => c.spec),
      layers,
      id_lists: {},
      default_environment: this.scope.fixed,
    };
    if (options.targetApps[0] !== undefined) specs.app_id = options.targetApps[0];
    // The JSON of `specs`, from each spec's own JSON: a spec reused from the memo is not serialised
    // again, and the download is one copy of the pieces (megabytes, for thousands of entities).
    const json = (): Buffer => {
      const pieces: Buffer[] = [];
      const text = (value: string): number => pieces.push(Buffer.from(value));
      const list = (name: string, items: Compiled[]): void => {
        text(`"${name}":[`);
        items.forEach((c, i) => {
          if (i > 0) pieces.push(COMMA);
          pieces.push((c.json ??= Buffer.from(JSON.stringify(c.spec))));
        });
        text('],');
      };
      const { feature_gates: _g, dynamic_configs: _c, layer_configs: _l, ...rest } = specs;
      text('{');
      list('feature_gates', gates);
      list('dynamic_configs', configs);
      list('layer_configs', layerConfigs);
      text(JSON.stringify(rest).slice(1));
      return Buffer.concat(pieces);
    };
    return { specs, json };
  }
}

/** A group of an experiment by its id or name. */
function groupOf(experiment: JsonObject, ref: unknown): JsonObject | undefined {
  const wanted = str(ref);
  if (wanted === undefined) return undefined;
  const groups = objects(experiment['groups']);
  return groups.find((g) => g['id'] === wanted) ?? groups.find((g) => g['name'] === wanted);
}

const groupKey = (group: JsonObject): string => str(group['id']) ?? str(group['name']) ?? 'group';

/** The experiment of a layer one of whose groups has this name (a layer id override naming no experiment). */
function experimentOfGroup(experiments: readonly JsonObject[], layer: JsonObject | undefined, groupName: unknown): string | undefined {
  if (!layer) return undefined;
  const owner = experiments.find((e) => e['layerID'] === layer['id'] && groupOf(e, groupName) !== undefined);
  return owner ? idOf(owner) : undefined;
}

/**
 * The console's entities as the config specs Statsig's server SDKs download: gates, segments (as
 * `segment:<id>` gates), holdouts (as `holdout:<id>` gates), dynamic configs, experiments (dynamic
 * configs with entity `experiment`) and layers, in the shapes Statsig's own server compiles them
 * to, so `statsig-node` evaluates them unmodified. Pure: the same entities and options give the
 * same specs on every replica.
 */
export function compileConfigSpecs(source: CompileSource, options: CompileOptions): ConfigSpecs {
  return new Compiler(source, options).compile().specs;
}

/**
 * `compileConfigSpecs` with the JSON of the specs as well, reusing what `memo` kept from earlier
 * compilations (the specs of entities that didn't change, and their JSON).
 */
export function compileConfigSpecsJson(source: CompileSource, options: CompileOptions, memo: SpecMemo): { specs: ConfigSpecs; json: Buffer } {
  const { specs, json } = new Compiler(source, options, memo).compile();
  return { specs, json: json() };
}
