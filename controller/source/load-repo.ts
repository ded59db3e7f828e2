import { entryForFolder } from '../../schemas/entity-file.js';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { REPO_CONFIG_FILE, RepoConfigSchema, type RepoConfig } from '../../schemas/repo-config.js';
import { ownershipIssues } from '../core/ownership-issues.js';
import { driftEntityIssues } from '../core/drift-entity-issues.js';
import { crossReferenceIssues } from '../core/cross-references.js';
import { didYouMean } from '../core/did-you-mean.js';
import type { Diagnostic, Issue, RepoEntity } from '../core/repo-entity.js';
import { validateEntityFile } from '../core/validate-entity.js';
import { parseWith } from '../core/zod-errors.js';
import { InputError, type FieldError } from '../errors.js';
import { teamRuleSchemaErrors, teamRuleViolations } from '../core/team-rules.js';
import { parseYamlFile, type ParsedYamlFile } from './parse-yaml-file.js';
import { loadFlagTests } from './load-flag-tests.js';
import type { PlacedFlagTest } from '../core/eval/run-flag-tests.js';
import { readerLimits, stopIfAborted, unreadableError } from './read-budget.js';
import { problemDiagnostic } from './problem-diagnostic.js';
import type { RepoListing, RepoReader } from './repo-reader.js';
import { escapeControl } from '../core/escape-control.js';
import { diagnosticFieldError } from '../core/render-diagnostics.js';

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
  /** The flag test cases of tests/*.yaml that passed their checks, ready to run. */
  flagTests: PlacedFlagTest[];
}

export const hasErrors = (diagnostics: readonly Diagnostic[]): boolean => diagnostics.some((d) => d.severity === 'error');

const ENTITY_FILE = /^(.*)\.ya?ml$/;

function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column || (a.property < b.property ? -1 : a.property > b.property ? 1 : 0);
}

/** In the order `validate` prints them: by file, then position. */
export const sortDiagnostics = (diagnostics: Diagnostic[]): Diagnostic[] => diagnostics.sort(compareDiagnostics);

/** Parses and validates one entity file on its own (no cross-file rules): the unit apply and the bridge read. */
export function loadEntityFile(path: string, text: string): { entity?: RepoEntity; diagnostics: Diagnostic[] } {
  const [folder = '', name = ''] = path.split('/').slice(-2);
  const entry = entryForFolder(folder);
  const stem = ENTITY_FILE.exec(name)?.[1];
  if (!entry || stem === undefined) {
    return { diagnostics: [{ file: path, property: '', message: `is not an entity file: expected <folder>/<id>.yaml with folder one of ${ENTITY_SCHEMAS.map((e) => e.folder).join(', ')}`, code: 'file', severity: 'error', line: 1, column: 1 }] };
  }
  try {
    const parsed = parseYamlFile(path, text);
    const issues = [...parsed.issues];
    let entity: RepoEntity | undefined;
    if (parsed.data !== undefined) {
      const result = validateEntityFile(entry, path, stem, parsed.data);
      for (const issue of result.issues) issues.push(issue);
      entity = result.entity;
    }
    return { entity, diagnostics: issues.map((i) => parsed.place(i)).sort(compareDiagnostics) };
  } catch (error) {
    return { diagnostics: [{ file: path, property: '', message: `could not be checked: ${(error as Error).message}`, code: 'yaml', severity: 'error', line: 1, column: 1 }] };
  }
}

const DIRECTIVE = /^#\s*flagops:\s*drift\s*=\s*(\S*)\s*$/m;

/**
 * A file may set its own drift policy in a comment line, `# flagops: drift=heal`, which wins over
 * flagops.yaml (comments, so the entity's fields stay exactly the API's).
 */
export function driftDirective(path: string, text: string): { policy?: 'detect' | 'heal' | 'adopt'; issue?: Diagnostic } {
  // Most files have none: the substring test spares them the multi-line regular expression.
  const match = text.includes('flagops:') ? DIRECTIVE.exec(text) : null;
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

/**
 * flagops.yaml's data checked as every reader checks it: its schema, then its team rules, which must
 * be valid JSON Schema (the bridge reads it with this too).
 */
export function checkRepoConfig(data: unknown): { ok: true; value: RepoConfig } | { ok: false; errors: FieldError[] } {
  const parsed = parseWith(RepoConfigSchema, data ?? {});
  if (!parsed.ok) return parsed;
  const invalid = teamRuleSchemaErrors(parsed.value.policies.schemas);
  return invalid.length > 0 ? { ok: false, errors: invalid } : parsed;
}

function loadConfig(file: ParsedYamlFile | undefined): { config: RepoConfig; issues: Issue[] } {
  const defaults = RepoConfigSchema.parse({});
  if (!file) return { config: defaults, issues: [] };
  const issues = [...file.issues];
  if (file.data === undefined) return { config: defaults, issues };
  const parsed = checkRepoConfig(file.data);
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
  const refused = listing.problems.filter((p) => p.path === REPO_CONFIG_FILE);
  if (refused.length > 0) throw unreadableError(reader.label, refused);
  if (!listing.files.includes(REPO_CONFIG_FILE)) return RepoConfigSchema.parse({});
  return parseRepoConfigText((await reader.read([REPO_CONFIG_FILE])).get(REPO_CONFIG_FILE) ?? '');
}

/** flagops.yaml's text as its settings; throws an InputError placed at file:line:col when it is invalid. */
export function parseRepoConfigText(text: string): RepoConfig {
  const file = parseYamlFile(REPO_CONFIG_FILE, text);
  const { config, issues } = loadConfig(file);
  const errors = issues.filter((i) => i.severity === 'error').map((i) => file.place(i));
  if (errors.length > 0) {
    // In the order and form `validate` prints them.
    throw new InputError(`${REPO_CONFIG_FILE} is invalid.`, errors.sort(compareDiagnostics).map(diagnosticFieldError));
  }
  return config;
}

/**
 * A folder with neither flagops.yaml nor a kind folder is most likely the wrong folder: CI aimed
 * at it must fail, not report zero files valid.
 */
function requireConfigRepo(reader: RepoReader, listing: RepoListing): void {
  if (reader.options.allowEmpty || listing.kindFolders.length > 0 || listing.files.includes(REPO_CONFIG_FILE) || listing.problems.length > 0) return;
  throw new InputError(`${escapeControl(reader.label, true)} is not a config repository: it has no ${REPO_CONFIG_FILE} and none of the folders ${ENTITY_SCHEMAS.map((e) => `${e.folder}/`).join(', ')}.`, [
    { property: 'DIR', errorMessage: 'point at the folder holding flagops.yaml, or pass --allow-empty to accept an empty repository' },
  ]);
}

/** Issues placed and shown per file: a generated file of a million bad keys reports the first ones, and a count. */
const MAX_ISSUES_PER_FILE = 1000;

/** Top-level keys of an entity file beyond which its fields are not checked one by one. */
const MAX_ENTITY_KEYS = 1000;

/** Files the loader reads between two turns of the event loop, so a signal can stop a long run. */
const PARSE_BATCH = 200;

/**
 * Reads, parses and validates a whole config repository: flagops.yaml, one file per entity, every
 * schema and kind rule, and the cross-file rules. Collects every problem in one run instead of
 * stopping at the first, each placed at file:line:column.
 */
export async function loadRepo(reader: RepoReader): Promise<LoadedRepo> {
  const listing = await reader.list();
  requireConfigRepo(reader, listing);
  const diagnostics: Diagnostic[] = listing.problems.map(problemDiagnostic);
  const issuesAt = (file: ParsedYamlFile | undefined, issues: Issue[]): void => {
    for (const issue of issues) diagnostics.push(file ? file.place(issue) : { ...issue, line: 1, column: 1 });
  };

  // flagops.yaml first, within the limits of the flags (or the defaults): its own limits govern the rest.
  let configFile: ParsedYamlFile | undefined;
  if (listing.files.includes(REPO_CONFIG_FILE)) {
    const read = await reader.readWithin([REPO_CONFIG_FILE], readerLimits(reader.options));
    diagnostics.push(...read.problems.map(problemDiagnostic));
    const configText = read.texts.get(REPO_CONFIG_FILE);
    if (configText !== undefined) configFile = parseYamlFile(REPO_CONFIG_FILE, configText);
  }
  const { config, issues: configIssues } = loadConfig(configFile);
  issuesAt(configFile, configIssues);

  const entityPaths = listing.files.filter((path) => path !== REPO_CONFIG_FILE && ENTITY_FILE.test(path.split('/')[1] ?? ''));
  // Flag tests count against the same limits as the entity files.
  const read = await reader.readWithin([...entityPaths, ...listing.testFiles], readerLimits(reader.options, config.limits));
  const texts = read.texts;
  for (const problem of read.problems) diagnostics.push(problemDiagnostic(problem));

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
  for (const [index, path] of listing.files.entries()) {
    if (path === REPO_CONFIG_FILE) continue;
    if (index % PARSE_BATCH === PARSE_BATCH - 1) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      stopIfAborted(reader.options.signal);
    }
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
    const text = texts.get(path);
    // Not read (its problem is already reported).
    if (text === undefined) continue;
    fileCount++;
    try {
      // The parsed document (the bulk of the memory) is dropped after this file's checks.
      const parsed = parseYamlFile(path, text);
      const issues = [...parsed.issues];
      const keys = parsed.data !== null && typeof parsed.data === 'object' && !Array.isArray(parsed.data) ? Object.keys(parsed.data).length : 0;
      if (keys > MAX_ENTITY_KEYS) {
        // No entity has that many fields: checking each key (and placing each error) would take minutes.
        // Placed at 1:1 directly: placing it through the document would parse the whole file again.
        diagnostics.push({ file: path, property: '', message: `has ${keys} top-level keys; an entity has at most a few dozen fields (${MAX_ENTITY_KEYS} keys are the most checked)`, code: 'unknown-field', severity: 'error', line: 1, column: 1 });
      } else if (parsed.data !== undefined) {
        const result = validateEntityFile(entry, path, stem, parsed.data);
        // A loop, not push(...): a file of a million bad keys has a million issues.
        for (const issue of result.issues) issues.push(issue);
        const directive = driftDirective(path, text);
        if (directive.issue) diagnostics.push(directive.issue);
        if (result.entity) entities.push(directive.policy ? { ...result.entity, drift: directive.policy } : result.entity);
        // The file as it declares the entity: what the team's rule is written against.
        for (const v of result.declared ? teamRuleViolations(folder, result.declared.data, config.policies.schemas) : []) {
          issues.push({ file: path, property: v.property, message: `breaks team rule ${v.rule}: ${v.message}`, code: 'policy', severity: 'error' });
        }
        if (result.declared) declared.push(result.declared);
      }
      if (issues.length > MAX_ISSUES_PER_FILE) {
        const more = issues.length - MAX_ISSUES_PER_FILE;
        issues.length = MAX_ISSUES_PER_FILE;
        issues.push({ file: path, property: '', message: `and ${more} more problems in this file (the first ${MAX_ISSUES_PER_FILE} are shown)`, code: 'file', severity: 'error' });
      }
      issuesAt(parsed, issues);
    } catch (error) {
      // However odd the file, it costs only its own checks, never its name or the other files'.
      diagnostics.push({ file: path, property: '', message: `could not be checked: ${(error as Error).message}`, code: 'yaml', severity: 'error', line: 1, column: 1 });
    }
  }
  // Cross-file issues are rare: their files are parsed again to place them.
  const reparsed = new Map<string, ParsedYamlFile>();
  for (const issue of crossReferenceIssues(declared, config.environments)) {
    let file = reparsed.get(issue.file);
    if (!file) reparsed.set(issue.file, (file = parseYamlFile(issue.file, texts.get(issue.file) ?? '')));
    issuesAt(file, [issue]);
  }
  if (configFile) issuesAt(configFile, [...driftEntityIssues(REPO_CONFIG_FILE, config.drift.entities, declared), ...ownershipIssues(REPO_CONFIG_FILE, config.ownership.console, declared)]);
  const testTexts = new Map(listing.testFiles.flatMap((path) => (texts.has(path) ? [[path, texts.get(path) ?? '']] : [])));
  const flagTests = loadFlagTests(testTexts, { declared: declared.map((e) => `${e.folder}/${e.id}`), environments: config.environments });
  for (const d of flagTests.diagnostics) diagnostics.push(d);
  diagnostics.sort(compareDiagnostics);
  return { label: reader.label, config, entities, diagnostics, fileCount, flagTests: flagTests.tests };
}
