import type { FlagTestCase } from '../../../schemas/flag-test.js';
import { jsonEqual } from '../json-equal.js';
import { decidedBy, explain } from './explain.js';
import type { FilesEvaluator } from './files-evaluator.js';
import { evaluateFlag, type FlagKind } from './flag-keys.js';
import { isPlainObject } from '../is-plain-object.js';

/** A case of a flag test file, checked and placed at its list item. */
export interface PlacedFlagTest {
  file: string;
  line: number;
  column: number;
  kind: FlagKind;
  id: string;
  test: FlagTestCase;
}

export interface FlagTestDecision {
  reason: 'rule' | 'default' | 'disabled' | 'unsupported';
  ruleID: string;
  ruleName: string | null;
  groupName: string | null;
}

/** Units of a sample one rule (or the default, or the disabled entity) decided, and how many of them got the expected answer. */
export interface SampleRule {
  ruleID: string;
  ruleName: string | null;
  units: number;
  matched: number;
}

export interface FlagTestResult {
  file: string;
  line: number;
  column: number;
  name: string;
  entity: string;
  environment: string | null;
  passed: boolean;
  expected: unknown;
  /** One user: the flag's value; a sample: the observed share of units that got the expected answer. */
  actual: unknown;
  /** An experiment's or a layer's group for one user. */
  group?: string | null;
  /** One user: what decided the answer. */
  decision?: FlagTestDecision;
  /** A sample: how many units got the expected answer, and how many each rule decided. */
  sample?: { units: number; matched: number; passRate: number; rules: SampleRule[] };
  /** Expected, actual and what decided, in words. */
  message: string;
}

export const DEFAULT_TOLERANCE = 0.01;

/** First unit id of a sample is `sample-1`: deterministic, so every run buckets the same units. */
export const sampleUnitID = (n: number): string => `sample-${n}`;


/** `actual` contains `expected`: every key of an expected object, recursively; anything else equal. */
export function containsValue(actual: unknown, expected: unknown): boolean {
  if (!isPlainObject(expected)) return jsonEqual(actual, expected);
  if (!isPlainObject(actual)) return false;
  return Object.entries(expected).every(([k, v]) => Object.hasOwn(actual, k) && containsValue(actual[k], v));
}

/** Whether an answer meets the expect of one user (an experiment's `group` names its group; the other keys its parameters). */
function meets(kind: FlagKind, expected: unknown, value: unknown, group: string | null): boolean {
  if (kind === 'gate') return value === expected;
  if (kind === 'experiment' && isPlainObject(expected) && 'group' in expected) {
    const { group: wanted, ...params } = expected;
    return wanted === group && containsValue(value, params);
  }
  return containsValue(value, expected);
}

const show = (v: unknown): string => JSON.stringify(v) ?? 'undefined';

/**
 * Runs flag tests with the engine over the repository's files. Pure: the engine's capabilities come
 * with the evaluator.
 */
export function runFlagTests(tests: readonly PlacedFlagTest[], engine: FilesEvaluator): FlagTestResult[] {
  return tests.map((t) => (t.test.sample ? runSample(t, engine) : runOne(t, engine)));
}

function runOne(t: PlacedFlagTest, engine: FilesEvaluator): FlagTestResult {
  const environment = t.test.environment ?? null;
  const { evaluator } = engine.in(environment);
  const { evaluation, value } = evaluateFlag(evaluator, { kind: t.kind, id: t.id }, t.test.user ?? {});
  const e = explain(t.test.entity, { kind: t.kind, id: t.id }, environment, evaluation, value);
  const passed = meets(t.kind, t.test.expect, value, e.groupName);
  const group = t.kind === 'experiment' || t.kind === 'layer' ? { group: e.groupName } : {};
  const got = `${show(value)}${e.groupName ? ` (group ${e.groupName})` : ''}`;
  return {
    ...where(t),
    passed,
    expected: t.test.expect,
    actual: value,
    ...group,
    decision: { reason: e.reason, ruleID: e.ruleID, ruleName: e.ruleName, groupName: e.groupName },
    message: `${passed ? 'got' : `expected ${show(t.test.expect)}, got`} ${got}, decided by ${decidedBy(e)}`,
  };
}

function runSample(t: PlacedFlagTest, engine: FilesEvaluator): FlagTestResult {
  const sample = t.test.sample as NonNullable<FlagTestCase['sample']>;
  const expect = t.test.expect as { passRate: number; tolerance?: number; value?: unknown };
  const wanted = expect.value ?? (t.kind === 'gate' ? true : undefined);
  const tolerance = expect.tolerance ?? DEFAULT_TOLERANCE;
  const environment = t.test.environment ?? null;
  const { evaluator } = engine.in(environment);
  const idType = sample.idType ?? 'userID';
  const base = t.test.user ?? {};
  const rules = new Map<string, SampleRule>();
  let matched = 0;
  for (let n = 1; n <= sample.units; n++) {
    const id = sampleUnitID(n);
    const user = idType.toLowerCase() === 'userid' ? { ...base, userID: id } : { ...base, customIDs: { ...base.customIDs, [idType]: id } };
    const { evaluation, value } = evaluateFlag(evaluator, { kind: t.kind, id: t.id }, user);
    const hit = meets(t.kind, wanted, value, evaluation.groupName);
    if (hit) matched++;
    const key = evaluation.reason === 'rule' ? evaluation.ruleID : evaluation.reason;
    let seen = rules.get(key);
    if (!seen) rules.set(key, (seen = { ruleID: evaluation.ruleID, ruleName: evaluation.reason === 'rule' ? evaluation.ruleName : evaluation.reason === 'not_found' ? 'default' : evaluation.reason, units: 0, matched: 0 }));
    seen.units++;
    if (hit) seen.matched++;
  }
  const passRate = matched / sample.units;
  // Rounded to the sample's precision, so 0.25 ± 0.02 admits 0.27 exactly.
  const passed = Math.abs(passRate - expect.passRate) <= tolerance + 1e-9;
  const decided = [...rules.values()].sort((a, b) => b.units - a.units).map((r) => `${r.ruleName ?? r.ruleID} ${r.units} (${r.matched} of them ${wanted === true ? 'passed' : 'got it'})`);
  return {
    ...where(t),
    passed,
    expected: t.test.expect,
    actual: passRate,
    sample: { units: sample.units, matched, passRate, rules: [...rules.values()] },
    message: `${passed ? '' : `expected a pass rate of ${expect.passRate} ± ${tolerance}, got `}${passRate} (${matched} of ${sample.units} units${wanted !== true ? ` got ${show(wanted)}` : ' passed'}), decided by ${decided.join(', ')}`,
  };
}

function where(t: PlacedFlagTest): Pick<FlagTestResult, 'file' | 'line' | 'column' | 'name' | 'entity' | 'environment'> {
  return { file: t.file, line: t.line, column: t.column, name: t.test.name, entity: t.test.entity, environment: t.test.environment ?? null };
}
