import { DynamicConfigPatchSchema } from '../../schemas/dynamic-config.js';
import { GatePatchSchema } from '../../schemas/gate.js';
import { RuleRolloutShape } from '../../schemas/rule.js';
import { zodProblems, type FieldProblem, type Json } from './api.js';
import { parseEditor, type EditorValue } from './components/value-editor.js';
import { jsonEqual } from '../../controller/core/json-equal.js';

/** Rule fields the console adds to its answers; a change may not send them back. */
const RESPONSE_ONLY_RULE_FIELDS = Object.keys(RuleRolloutShape);

/**
 * A value written as JSON5 text once: the console answers both the text (`returnValueJson5`, with its
 * comments) and the value parsed from it (`returnValue`). The form keeps the text alone, so an edit is
 * made in one place and the console parses it again; two copies to keep equal by hand would be refused
 * whenever they differ.
 */
function withoutJson5Twins(item: object): Json {
  const fields = item as Json;
  return Object.fromEntries(Object.entries(fields).filter(([k]) => typeof fields[`${k}Json5`] !== 'string'));
}

/** An entity's rules as a change may send them. */
export function editableRules(rules: unknown): unknown {
  if (!Array.isArray(rules)) return [];
  return rules.map((rule) => {
    if (typeof rule !== 'object' || rule === null) return rule;
    const kept = withoutJson5Twins(Object.fromEntries(Object.entries(rule).filter(([k]) => !RESPONSE_ONLY_RULE_FIELDS.includes(k))));
    if (Array.isArray(kept['variants'])) kept['variants'] = kept['variants'].map((v: unknown) => (typeof v === 'object' && v !== null ? withoutJson5Twins(v) : v));
    return kept;
  });
}

/** What the edit form holds. */
export interface EditedFields {
  name: string;
  description: string;
  isEnabled: boolean;
  /** Gates only. */
  type?: string;
  tags: string[];
  rules: EditorValue;
  /** Dynamic configs only. */
  defaultValue?: EditorValue;
}


/**
 * The partial update the form asks for: only the fields that differ from the entity, checked with the
 * same zod schema the API validates PATCH bodies with. Problems name the field.
 */
export function changeOf(kind: 'gate' | 'dynamic_config', entity: Json, edited: EditedFields): { change: Json; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const wanted: Json = { name: edited.name, description: edited.description, isEnabled: edited.isEnabled, tags: edited.tags };
  if (kind === 'gate') wanted['type'] = edited.type;
  const rules = parseEditor(edited.rules);
  if (rules.ok) wanted['rules'] = rules.value;
  else problems.push({ property: 'rules', errorMessage: rules.message });
  const change: Json = {};
  for (const [key, value] of Object.entries(wanted)) {
    const current = key === 'rules' ? editableRules(entity['rules']) : entity[key];
    if (!jsonEqual(current, value)) change[key] = value;
  }
  if (kind === 'dynamic_config' && edited.defaultValue) {
    const parsed = parseEditor(edited.defaultValue);
    const json5 = edited.defaultValue.format === 'json5';
    if (!parsed.ok) problems.push({ property: 'defaultValue', errorMessage: parsed.message });
    else if (json5 ? edited.defaultValue.text !== entity['defaultValueJson5'] : !jsonEqual(parsed.value, entity['defaultValue'])) {
      // One twin replaces the pair: the console derives the plain value from JSON5, or drops stale JSON5.
      if (json5) change['defaultValueJson5'] = edited.defaultValue.text;
      else change['defaultValue'] = parsed.value;
    }
  }
  if (problems.length === 0) {
    const checked = (kind === 'gate' ? GatePatchSchema : DynamicConfigPatchSchema).safeParse(change);
    if (!checked.success) problems.push(...zodProblems(checked.error));
  }
  return { change, problems };
}
