import type { FieldError } from '../errors.js';
import { assignmentSourceRuleErrors } from './assignment-source-rules.js';
import { dynamicConfigRuleErrors } from './dynamic-config-rules.js';
import { duplicateIds, experimentRuleErrors, layerRuleErrors } from './experiment-rules.js';
import { gateRuleErrors } from './gate-rules.js';
import { experimentOverrideErrors, gateOverrideErrors, layerOverrideErrors } from './override-rules.js';
import { duplicateNames } from './rule-names.js';
import { segmentRuleErrors } from './segment-rules.js';

type Json = Record<string, unknown>;

const rulesOf = (entity: Json, key = 'rules'): Json[] => (Array.isArray(entity[key]) ? (entity[key] as Json[]) : []);

/**
 * The pure, lookup-free rules each kind enforces beyond its zod schema, composed once: `flagops
 * validate` runs them on files and the console on every write (declared-kind.ts, before the rules
 * that read other entities), so a file that validates here is accepted by the console. Rules that
 * need other entities are checked across the repository by cross-references.ts. Kinds without an
 * entry get the rule every kind with rules shares: rule names unique.
 */
export const ENTITY_RULES: Readonly<Record<string, (entity: Json) => FieldError[]>> = {
  gate: (gate) => [...gateRuleErrors(gate), ...gateOverrideErrors(gate)],
  segment: segmentRuleErrors,
  dynamic_config: dynamicConfigRuleErrors,
  experiment: (experiment) => [...experimentRuleErrors(experiment), ...experimentOverrideErrors(experiment)],
  layer: (layer) => [...layerRuleErrors(layer), ...layerOverrideErrors(layer)],
  holdout: (holdout) => ['gateIDs', 'experimentIDs', 'layerIDs'].flatMap((field) => duplicateIds(holdout, field)),
  assignment_source: assignmentSourceRuleErrors,
  prompt: () => [],
};

export function entityRuleErrors(kind: string, entity: Json): FieldError[] {
  const rule = ENTITY_RULES[kind];
  return rule ? rule(entity) : duplicateNames(rulesOf(entity), 'rules');
}
