/**
 * What every evaluation answers: the value and why. Surfaces render it (OFREP's `reason` and
 * `variant`, `flagops eval`'s trail, the console's "try it").
 */

/** How one condition of a rule went for the user. */
export interface ConditionTrail {
  type: string;
  operator: string | null;
  field: string | null;
  targetValue: unknown;
  /** The user's value the condition compared (not for `public` and gate conditions). */
  value?: unknown;
  passed: boolean;
  /** Set when the engine cannot evaluate this condition; says why. */
  unsupported?: string;
  /** For `pass_gate`/`fail_gate` (and their `multi_` forms): the gates checked and what they answered. */
  gates?: { name: string; value: boolean; ruleID: string }[];
}

/**
 * How one rule went: `matched` (conditions passed and the unit is within the pass percentage),
 * `percentage_failed` (conditions passed, the unit's bucket is outside the pass percentage: the rule
 * still decides, with the default value), `conditions_failed` (evaluation moves on to the next
 * rule), `delegated` (a layer rule handed the unit to an experiment), `unsupported`.
 */
export type RuleOutcome = 'matched' | 'percentage_failed' | 'conditions_failed' | 'delegated' | 'unsupported';

export interface RuleTrail {
  ruleID: string;
  ruleName: string;
  groupName: string | null;
  outcome: RuleOutcome;
  passPercentage: number;
  /** The unit's bucket (0–9999) when the pass percentage was strictly between 0 and 100. */
  bucket?: number;
  conditions: ConditionTrail[];
}

/**
 * `rule`: a rule decided (see `ruleID`, and `trail`'s last entry for how); `default`: no rule
 * matched; `disabled`: the entity is off; `unsupported`: a rule it reached has a condition the
 * engine cannot evaluate (the value is then `false`/`{}`, as the Statsig SDK answers);
 * `not_found`: no such entity in the specs.
 */
export type EvaluationReason = 'rule' | 'default' | 'disabled' | 'unsupported' | 'not_found';

export interface Evaluation {
  name: string;
  /** The spec's entity kind (`feature_gate`, `dynamic_config`, `experiment`, `layer`, `segment`, `holdout`), null when not found. */
  entity: string | null;
  reason: EvaluationReason;
  /** A gate's answer; for a config or experiment, whether a rule passed. */
  value: boolean;
  /** The config, experiment or layer value (`{}` for a gate, as the SDK reports it). */
  jsonValue: unknown;
  /** The deciding rule's id; `default`, `disabled` or empty as the SDK reports them. */
  ruleID: string;
  ruleName: string | null;
  /** The experiment group, when an experiment group decided. */
  groupName: string | null;
  isExperimentGroup: boolean;
  /** For a layer: the experiment the unit was allocated to, and that experiment's evaluation. */
  configDelegate: string | null;
  delegate: Evaluation | null;
  explicitParameters: string[] | null;
  /** Every rule evaluated, in order, up to and including the deciding one. */
  trail: RuleTrail[];
  /** When `reason` is `unsupported`: the rule and condition that could not be evaluated. */
  unsupported: { ruleID: string; ruleName: string; condition: ConditionTrail } | null;
}
