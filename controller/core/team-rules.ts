import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { TeamRuleSchemas } from '../../schemas/repo-config.js';
import type { FieldError } from '../errors.js';
import { linearRegExp } from './linear-pattern.js';
import { formatPath } from './zod-errors.js';

/**
 * The team's own rules (`policies.schemas.<folder>` of flagops.yaml): JSON Schema 2020-12 that every
 * entity of a kind must satisfy. One compiler for validate, plan and the bridge, so a rule means the
 * same wherever it is checked.
 */

// strictSchema: a misspelt keyword (`requried`) would otherwise be ignored and the rule never break.
// Formats are annotations only: ajv knows none without a plugin, and an unknown one would refuse the
// schema. Patterns run on the linear-time engine, as dynamic configs' schemas do.
const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, validateFormats: false, logger: false, code: { regExp: linearRegExp } });
const compiled = new Map<string, ValidateFunction | Error>();
/** By the schema object too: validate asks once per entity file, with the same flagops.yaml object. */
const byObject = new WeakMap<object, ValidateFunction | Error>();

/** How a rule is named in messages: `policies.schemas.gates`, then the schema path of the keyword. */
export const teamRuleName = (folder: string): string => `policies.schemas.${folder}`;

function compile(schema: unknown): ValidateFunction | Error {
  const known = typeof schema === 'object' && schema !== null ? byObject.get(schema) : undefined;
  if (known !== undefined) return known;
  const hit = compileByText(schema);
  if (typeof schema === 'object' && schema !== null) byObject.set(schema, hit);
  return hit;
}

function compileByText(schema: unknown): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  let hit = compiled.get(key);
  if (hit === undefined) {
    try {
      hit = ajv.compile(schema as object);
    } catch (error) {
      hit = error instanceof Error ? error : new Error(String(error));
    } finally {
      // ajv keeps every schema it compiles, by object and by `$id`: a second flagops.yaml (a new head
      // at the bridge) reusing an `$id` would be refused. The compiled function holds what it needs.
      if (schema !== null && typeof schema === 'object') ajv.removeSchema(schema as object);
    }
    if (compiled.size > 100) compiled.clear();
    compiled.set(key, hit);
  }
  return hit;
}

/** `/rules/0/passPercentage` → `rules[0].passPercentage`: the property vocabulary of diagnostics. */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  const parts = pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
  return formatPath(parts);
}

/**
 * Every way the team rules are not valid JSON Schema 2020-12, each named by its property in
 * flagops.yaml (`policies.schemas.gates.properties.tags.type`) so it is placed at its line.
 */
export function teamRuleSchemaErrors(schemas: TeamRuleSchemas): FieldError[] {
  const errors: FieldError[] = [];
  for (const [folder, schema] of Object.entries(schemas)) {
    if (schema === undefined) continue;
    const at = teamRuleName(folder);
    if (!ajv.validateSchema(schema as object)) {
      for (const e of ajv.errors ?? []) {
        const path = pointerToPath(e.instancePath);
        errors.push({ property: path === '' ? at : `${at}${path.startsWith('[') ? '' : '.'}${path}`, errorMessage: `is not valid JSON Schema 2020-12: ${e.message ?? 'is invalid'}` });
      }
      continue;
    }
    const result = compile(schema);
    if (result instanceof Error) errors.push({ property: at, errorMessage: `is not a usable JSON Schema 2020-12: ${result.message}` });
  }
  return errors;
}

/** One way an entity breaks a team rule. */
export interface TeamRuleViolation {
  /** Property of the entity the keyword judged (`tags`, `rules[0]`; '' for the entity as a whole). */
  property: string;
  /** The rule: `policies.schemas.gates#/properties/tags/contains`. */
  rule: string;
  /** What is wrong, with the rule's own description when it has one. */
  message: string;
}

function violation(folder: string, e: ErrorObject): TeamRuleViolation {
  const described = e.parentSchema !== null && typeof e.parentSchema === 'object' && typeof e.parentSchema['description'] === 'string' ? ` (${e.parentSchema['description']})` : '';
  return { property: pointerToPath(e.instancePath), rule: `${teamRuleName(folder)}${e.schemaPath}`, message: `${e.message ?? 'is invalid'}${described}` };
}

/**
 * How `data` breaks the team rule of its folder (empty when it has none or satisfies it). A rule that
 * does not compile is one violation: judged by a rule nobody can read, nothing passes.
 */
export function teamRuleViolations(folder: string, data: unknown, schemas: TeamRuleSchemas): TeamRuleViolation[] {
  const schema = (schemas as Record<string, unknown>)[folder];
  if (schema === undefined) return [];
  const validate = compile(schema);
  if (validate instanceof Error) return [{ property: '', rule: teamRuleName(folder), message: `is not a usable JSON Schema 2020-12: ${validate.message}` }];
  if (validate(data)) return [];
  // `if` reports a summary beside its `then`'s errors, and `contains` the items it found wanting
  // beside its own: the error that says what the rule wants is enough.
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if' && !e.schemaPath.includes('/contains/'));
  return errors.map((e) => violation(folder, e));
}
