/**
 * The desired state as the config repository declares it, and the issues found in it. Pure types
 * shared by the loader (controller/source), validation, plan and export.
 */
export type JsonObject = Record<string, unknown>;

/** One entity declared by a file of the repository. */
export interface RepoEntity {
  /** Config-repo folder, which is also the `kind` of the plan JSON: gates, dynamic_configs, ... */
  folder: string;
  /** Store kind: gate, dynamic_config, ... */
  kind: string;
  id: string;
  /** Repository-relative path, posix separators. */
  file: string;
  /** The file's fields as the kind's zod schema parsed them. */
  data: JsonObject;
  /** Drift policy set by the file itself (`# flagops: drift=adopt`), over flagops.yaml's. */
  drift?: 'detect' | 'heal' | 'adopt';
}

export type IssueCode =
  | 'yaml'
  | 'file'
  | 'not-a-mapping'
  | 'schema'
  | 'unknown-field'
  | 'server-field'
  | 'id-mismatch'
  | 'duplicate-id'
  | 'rule'
  | 'reference'
  | 'environment'
  | 'repo-config'
  | 'evaluation'
  | 'flag-test'
  | 'policy';

/** One thing wrong with a file, named by its property path (`rules[0].conditions[1].type`). */
export interface Issue {
  file: string;
  /** Property path inside the file; '' for the file as a whole. */
  property: string;
  message: string;
  code: IssueCode;
  severity: 'error' | 'warning';
  /** Point at the property's key rather than its value (a key that should not be there). */
  at?: 'key' | 'value';
}

/** An issue placed in its file: 1-based line and column of the offending node. */
export interface Diagnostic extends Issue {
  line: number;
  column: number;
}

export const ISSUE_DESCRIPTIONS: Readonly<Record<IssueCode, string>> = {
  yaml: 'The file is not valid YAML.',
  file: 'The file name or location does not follow the repository layout.',
  'not-a-mapping': 'An entity file must hold one YAML mapping.',
  schema: 'A field violates the entity schema (type, format, limit, required).',
  'unknown-field': 'The field is not part of the entity schema.',
  'server-field': 'The field is managed by the console and cannot be set in a file.',
  'id-mismatch': 'The id field must equal the file name.',
  'duplicate-id': 'Two files declare the same entity.',
  rule: 'A rule of the entity kind beyond its schema (unique names, JSON5 twins, dynamic-config schema, ...).',
  reference: 'A reference to another entity that the repository does not declare.',
  environment: 'A rule or an override names an environment that flagops.yaml does not list.',
  'repo-config': 'flagops.yaml is invalid.',
  evaluation: 'A condition the evaluation engine cannot evaluate: stored, but its rule evaluates as unsupported (a warning).',
  'flag-test': 'A flag test (tests/*.yaml) is malformed, names an entity the repository does not declare, or fails.',
  policy: "A change the bridge's policies would reject, or an entity that breaks a team rule of flagops.yaml (policies.schemas).",
};
