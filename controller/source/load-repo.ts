import { entryForFolder } from '../../schemas/entity-file.js';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { REPO_CONFIG_FILE, RepoConfigSchema, type RepoConfig } from '../../schemas/repo-config.js';
import { crossReferenceIssues } from '../core/cross-references.js';
import { didYouMean } from '../core/did-you-mean.js';
import type { Diagnostic, Issue, RepoEntity } from '../core/repo-entity.js';
import { validateEntityFile } from '../core/validate-entity.js';
import { parseWith } from '../core/zod-errors.js';
import { InputError } from '../errors.js';
import { parseYamlFile, type ParsedYamlFile } from './parse-yaml-file.js';
import type { RepoReader } from './repo-reader.js';

export interface LoadedRepo {
  /** Where it was read from: a directory or `git <ref>`. */
  label: string;
  config: RepoConfig;
  /** Entities of every file that passed its schema, in the listing's (sorted path) order. */
  entities: RepoEntity[];
  /** Every error and warning, placed at file:line:column, sorted by file and position. */
  diagnostics: Diagnostic[];
  /** Number of entity files read. */
  fileCount: number;
}

export const hasErrors = (diagnostics: readonly Diagnostic[]): boolean => diagnostics.some((d) => d.severity === 'error');

const ENTITY_FILE = /^(.*)\.ya?ml$/;

function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column || (a.property < b.property ? -1 : a.property > b.property ? 1 : 0);
}

/** Parses and validates one entity file on its own (no cross-file rules): the unit apply and the bridge read. */
export function loadEntityFile(path: string, text: string): { entity?: RepoEntity; diagnostics: Diagnostic[] } {
  const [folder = '', name = ''] = path.split('/').slice(-2);
  const entry = entryForFolder(folder);
  const stem = ENTITY_FILE.exec(name)?.[1];
  if (!entry || stem === undefined) {
    return { diagnostics: [{ file: path, property: '', message: `is not an entity file: expected <folder>/<id>.yaml with folder one of ${ENTITY_SCHEMAS.map((e) => e.folder).join(', ')}`, code: 'file', severity: 'error', line: 1, column: 1 }] };
  }
  const parsed = parseYamlFile(path, text);
  const issues = [...parsed.issues];
  let entity: RepoEntity | undefined;
  if (parsed.data !== undefined) {
    const result = validateEntityFile(entry, path, stem, parsed.data);
    issues.push(...result.issues);
    entity = result.entity;
  }
  return { entity, diagnostics: issues.map((i) => parsed.place(i)).sort(compareDiagnostics) };
}

const DIRECTIVE = /^#\s*flagops:\s*drift\s*=\s*(\S*)\s*$/m;

/**
 * A file may set its own drift policy in a comment line, `# flagops: drift=heal`, which wins over
 * flagops.yaml (comments, so the entity's fields stay exactly the API's).
 */
export function driftDirective(path: string, text: string): { policy?: 'detect' | 'heal' | 'adopt'; issue?: Diagnostic } {
  const match = DIRECTIVE.exec(text);
  if (!match) return {};
  const value = match[1] ?? '';
  if (value === 'detect' || value === 'heal' || value === 'adopt') return { policy: value };
  const line = text.slice(0, match.index).split('\n').length;
  const message = `drift directive '${value}' must be one of detect, heal, adopt`;
  return { issue: { file: path, property: '', message, code: 'repo-config', severity: 'error', line, column: 1 } };
}

/**
 * Parses an entity file's text into its fields, or throws an InputError naming every problem with its
 * line: for callers that need the desired state of one entity (the bridge at a branch HEAD, apply).
 */
export function parseEntityText(text: string, path: string): Record<string, unknown> {
  const { entity, diagnostics } = loadEntityFile(path, text);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (!entity || errors.length > 0) {
    throw new InputError(`${path} is invalid.`, errors.map((d) => ({ property: `${d.file}:${d.line}:${d.column} ${d.property}`.trim(), errorMessage: d.message })));
  }
  return entity.data;
}

function loadConfig(file: ParsedYamlFile | undefined): { config: RepoConfig; issues: Issue[] } {
  const defaults = RepoConfigSchema.parse({});
  if (!file) return { config: defaults, issues: [] };
  const issues = [...file.issues];
  if (file.data === undefined) return { config: defaults, issues };
  const parsed = parseWith(RepoConfigSchema, file.data ?? {});
  if (parsed.ok) return { config: parsed.value, issues };
  for (const error of parsed.errors) {
    const unknown = error.errorMessage.startsWith('is not a known field');
    issues.push({ file: file.file, property: error.property === '(body)' ? '' : error.property, message: error.errorMessage, code: 'repo-config', severity: 'error', ...(unknown ? { at: 'key' as const } : {}) });
  }
  return { config: defaults, issues };
}

/**
 * Reads only flagops.yaml (defaults when absent), for commands that need the console settings before
 * the rest of the repository; throws an InputError placed at file:line:col when it is invalid.
 */
export async function readRepoConfig(reader: RepoReader): Promise<RepoConfig> {
  const listing = await reader.list();
  if (!listing.files.includes(REPO_CONFIG_FILE)) return RepoConfigSchema.parse({});
  const text = (await reader.read([REPO_CONFIG_FILE])).get(REPO_CONFIG_FILE) ?? '';
  const file = parseYamlFile(REPO_CONFIG_FILE, text);
  const { config, issues } = loadConfig(file);
  const errors = issues.filter((i) => i.severity === 'error').map((i) => file.place(i));
  if (errors.length > 0) {
    throw new InputError(`${REPO_CONFIG_FILE} is invalid.`, errors.map((d) => ({ property: `${d.file}:${d.line}:${d.column} ${d.property}`.trim(), errorMessage: d.message })));
  }
  return config;
}

/**
 * Reads, parses and validates a whole config repository: flagops.yaml, one file per entity, every
 * schema and kind rule, and the cross-file rules. Collects every problem in one run instead of
 * stopping at the first, each placed at file:line:column.
 */
export async function loadRepo(reader: RepoReader): Promise<LoadedRepo> {
  const listing = await reader.list();
  const texts = await reader.read(listing.files);
  const diagnostics: Diagnostic[] = [];
  const issuesAt = (file: ParsedYamlFile | undefined, issues: Issue[]): void => {
    for (const issue of issues) diagnostics.push(file ? file.place(issue) : { ...issue, line: 1, column: 1 });
  };

  const configText = texts.get(REPO_CONFIG_FILE);
  const configFile = configText === undefined ? undefined : parseYamlFile(REPO_CONFIG_FILE, configText);
  const { config, issues: configIssues } = loadConfig(configFile);
  issuesAt(configFile, configIssues);

  const folders = ENTITY_SCHEMAS.map((e) => e.folder);
  for (const folder of listing.otherFolders) {
    const suggestion = didYouMean(folder, folders);
    if (suggestion) issuesAt(undefined, [{ file: `${folder}/`, property: '', message: `is not a kind folder and is ignored (did you mean '${suggestion}/'?)`, code: 'file', severity: 'warning' }]);
  }
  for (const path of listing.ignored) {
    issuesAt(undefined, [{ file: `${path}/`, property: '', message: 'folders inside a kind folder are ignored: put entity files directly in the kind folder', code: 'file', severity: 'warning' }]);
  }

  const entities: RepoEntity[] = [];
  const declared: RepoEntity[] = [];
  let fileCount = 0;
  for (const path of listing.files) {
    if (path === REPO_CONFIG_FILE) continue;
    const [folder = '', name = ''] = path.split('/');
    const entry = entryForFolder(folder);
    const stem = ENTITY_FILE.exec(name)?.[1];
    if (!entry) continue;
    if (stem === undefined) {
      if (!name.startsWith('.') && !/\.(md|txt)$/i.test(name)) {
        issuesAt(undefined, [{ file: path, property: '', message: 'is ignored: entity files end in .yaml or .yml', code: 'file', severity: 'warning' }]);
      }
      continue;
    }
    fileCount++;
    // The parsed document (the bulk of the memory) is dropped after this file's checks.
    const parsed = parseYamlFile(path, texts.get(path) ?? '');
    const issues = [...parsed.issues];
    if (parsed.data !== undefined) {
      const result = validateEntityFile(entry, path, stem, parsed.data);
      issues.push(...result.issues);
      const directive = driftDirective(path, texts.get(path) ?? '');
      if (directive.issue) diagnostics.push(directive.issue);
      if (result.entity) entities.push(directive.policy ? { ...result.entity, drift: directive.policy } : result.entity);
      if (result.declared) declared.push(result.declared);
    }
    issuesAt(parsed, issues);
  }
  // Cross-file issues are rare: their files are parsed again to place them.
  const reparsed = new Map<string, ParsedYamlFile>();
  for (const issue of crossReferenceIssues(declared, config.environments)) {
    let file = reparsed.get(issue.file);
    if (!file) reparsed.set(issue.file, (file = parseYamlFile(issue.file, texts.get(issue.file) ?? '')));
    issuesAt(file, [issue]);
  }
  diagnostics.sort(compareDiagnostics);
  return { label: reader.label, config, entities, diagnostics, fileCount };
}
