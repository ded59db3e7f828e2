import { SERVER_FIELDS } from '../../schemas/common.js';
import { entityFileSchema } from '../../schemas/entity-file.js';
import { describeJsonTreeProblem, jsonTreeProblem, MAX_JSON_DEPTH } from '../../schemas/json-tree-problem.js';
import type { EntitySchemaEntry } from '../../schemas/index.js';
import { entityRuleErrors } from './entity-rules.js';
import { unevaluableConditions } from './eval/unevaluable-conditions.js';
import type { Issue, IssueCode, JsonObject, RepoEntity } from './repo-entity.js';
import { parseWith } from './zod-errors.js';
import { isPlainObject } from './is-plain-object.js';

const UNKNOWN = /^is not a known field/;
const readOnlyCache = new Map<string, Set<string>>();

function shapeKeys(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** Fields the console sets and returns but never accepts: server stamps plus the kind's response-only fields. */
export function readOnlyFields(entry: EntitySchemaEntry): Set<string> {
  let fields = readOnlyCache.get(entry.kind);
  if (fields === undefined) {
    const writable = new Set(shapeKeys(entry.create));
    fields = new Set([...SERVER_FIELDS, ...shapeKeys(entry.response).filter((k) => !writable.has(k))]);
    readOnlyCache.set(entry.kind, fields);
  }
  return fields;
}

/**
 * The entity as the console will validate it: defaults for what the file leaves out, except that a
 * file giving one twin of a JSON5 pair (`defaultValueJson5`) replaces the pair, as a write does.
 */
export function withDefaults(entry: EntitySchemaEntry, data: JsonObject): JsonObject {
  let fill = fillers.get(entry.kind);
  if (fill === undefined) fillers.set(entry.kind, (fill = compileFiller(entry)));
  // Not cloned: the rules only read the entity.
  return Object.assign(fill(data), data);
}

const fillers = new Map<string, (data: JsonObject) => JsonObject>();

/**
 * The defaults a file's data leaves to fill, compiled once per kind with the keys as literals (see
 * normalize.ts pickerOf): every file of a repository runs it, and the compiled form takes a third of
 * the time of a loop over the keys (bench:plan, docs/internals-fast-paths.md). Keys enter the code only
 * as JSON string literals; a key objects inherit keeps the interpreted form, which
 * validate-entity.test.ts holds the compiled one to.
 */
function compileFiller(entry: EntitySchemaEntry): (data: JsonObject) => JsonObject {
  const twins = Object.keys(entry.defaults).map((key) => [key, key.endsWith('Json5') ? key.slice(0, -'Json5'.length) : `${key}Json5`] as const);
  if (twins.some(([key, twin]) => key in Object.prototype || twin in Object.prototype)) return interpretedFiller(entry);
  const lines = twins.map(([key, twin]) => `t = data[${JSON.stringify(twin)}]; if (t === undefined || t === null) out[${JSON.stringify(key)}] = defaults[${JSON.stringify(key)}];`);
  return new Function('defaults', `return function fillDefaults(data) { const out = {}; let t; ${lines.join(' ')} return out; };`)(entry.defaults) as (data: JsonObject) => JsonObject;
}

/** The filler as a loop over the keys: for keys objects inherit, and the reference the compiled one is tested against. */
export function interpretedFiller(entry: EntitySchemaEntry): (data: JsonObject) => JsonObject {
  const twins = Object.keys(entry.defaults).map((key) => [key, key.endsWith('Json5') ? key.slice(0, -'Json5'.length) : `${key}Json5`] as const);
  return (data) => {
    const out: JsonObject = {};
    for (const [key, twin] of twins) if (data[twin] === undefined || data[twin] === null) out[key] = entry.defaults[key];
    return out;
  };
}

/** The compiled filler of a kind (what withDefaults runs), for tests. */
export const fillerOf = (entry: EntitySchemaEntry): ((data: JsonObject) => JsonObject) => compileFiller(entry);

// Module level, not a closure per file: transpilers that keep function names wrap each closure created.
function fileIssue(file: string, property: string, message: string, code: IssueCode, at?: 'key' | 'value'): Issue {
  return { file, property, message, code, severity: 'error', ...(at ? { at } : {}) };
}

export interface EntityFileResult {
  /** The entity, when the file passed its schema (it may still break a kind rule). */
  entity?: RepoEntity;
  /** What the file declares even when it fails its schema (raw fields), so cross-file rules still see it. */
  declared?: RepoEntity;
  issues: Issue[];
}

/**
 * Checks one entity file on its own: the kind's create schema (strict, with "did you mean" on unknown
 * keys), no server-managed fields, the id equal to the file name, and the kind's pure rules.
 */
export function validateEntityFile(entry: EntitySchemaEntry, file: string, stem: string, data: unknown): EntityFileResult {
  if (!isPlainObject(data)) {
    const what = data === null || data === undefined ? 'is empty' : 'is not a YAML mapping';
    return { issues: [fileIssue(file, '', `${what}: an entity file holds one mapping of ${entry.kind.replace(/_/g, ' ')} fields`, 'not-a-mapping')] };
  }
  const issues: Issue[] = [];
  const readOnly = readOnlyFields(entry);
  for (const key of Object.keys(data)) {
    if (readOnly.has(key)) issues.push(fileIssue(file, key, 'is managed by the console and cannot be set in a file', 'server-field', 'key'));
  }
  // The YAML reader holds the file to the depth limit; a JSON5 or schema text parses to a value that
  // takes the text's place, which only this sees. The console refuses the same body (a 400 at apply),
  // and a string holding U+0000 or a lone surrogate ("\0", "\ud800" in a double-quoted scalar) too.
  const tree = jsonTreeProblem(data, MAX_JSON_DEPTH);
  if (tree?.kind === 'text-too-deep' || tree?.kind === 'bad-character') {
    const { property, errorMessage } = describeJsonTreeProblem(tree);
    issues.push(fileIssue(file, property, errorMessage, 'schema'));
  }
  const parsed = parseWith(entityFileSchema(entry), data);
  if (!parsed.ok) {
    for (const error of parsed.errors) {
      const unknown = UNKNOWN.test(error.errorMessage);
      if (unknown && readOnly.has(error.property)) continue;
      if (error.property === entry.idField && error.errorMessage === 'is required') {
        issues.push(fileIssue(file, entry.idField, `is required and must equal the file name: ${entry.idField}: ${stem}`, 'id-mismatch'));
        continue;
      }
      issues.push(fileIssue(file, error.property === '(body)' ? '' : error.property, error.errorMessage, unknown ? 'unknown-field' : 'schema', unknown ? 'key' : undefined));
    }
  }
  const id = data[entry.idField];
  const declared: RepoEntity = { folder: entry.folder, kind: entry.kind, id: typeof id === 'string' ? id : stem, file, data };
  if (typeof id === 'string' && id !== stem) {
    issues.push(fileIssue(file, entry.idField, `must equal the file name: '${id}' is declared in ${file}, which names '${stem}'`, 'id-mismatch'));
  }
  if (!parsed.ok) return { declared, issues };
  const value = parsed.value as JsonObject;
  for (const error of entityRuleErrors(entry.kind, withDefaults(entry, value))) issues.push(fileIssue(file, error.property, error.errorMessage, 'rule'));
  for (const u of unevaluableConditions(entry.kind, value)) issues.push({ file, property: u.property, message: u.message, code: 'evaluation', severity: 'warning' });
  const entity: RepoEntity = { ...declared, data: value };
  return { entity, declared: entity, issues };
}
