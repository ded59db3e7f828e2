import { FLAG_TEST_FOLDERS, FlagTestCaseSchema, FlagTestSampleExpectSchema, type FlagTestCase } from '../../schemas/flag-test.js';
import { didYouMean } from '../core/did-you-mean.js';
import type { PlacedFlagTest } from '../core/eval/run-flag-tests.js';
import { FLAG_KIND_PREFIXES, type FlagKind } from '../core/eval/flag-keys.js';
import type { Diagnostic, Issue } from '../core/repo-entity.js';
import { parseWith } from '../core/zod-errors.js';
import { parseYamlFile } from './parse-yaml-file.js';
import { isPlainObject } from '../core/is-plain-object.js';

const KIND_OF_FOLDER = new Map((Object.entries(FLAG_KIND_PREFIXES) as [FlagKind, string][]).map(([kind, folder]) => [folder, kind]));

export interface FlagTestContext {
  /** `<folder>/<id>` of every entity a file declares (valid or not). */
  declared: readonly string[];
  /** flagops.yaml's environments, when it lists them. */
  environments?: readonly string[];
}


/**
 * Parses and checks flag test files: the schema (unknown keys with did-you-mean), a user or a
 * sample, an entity some file declares, an environment flagops.yaml lists, and an expect of the
 * entity's kind. Every problem is placed at file:line:col; the cases that pass are placed at their
 * list item, ready to run.
 */
export function loadFlagTests(texts: ReadonlyMap<string, string>, context: FlagTestContext): { tests: PlacedFlagTest[]; diagnostics: Diagnostic[] } {
  const tests: PlacedFlagTest[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const [file, text] of texts) {
    try {
      const parsed = parseYamlFile(file, text);
      const issues: Issue[] = [...parsed.issues];
      const issue = (property: string, message: string, at?: 'key'): void => void issues.push({ file, property, message, code: 'flag-test', severity: 'error', ...(at ? { at } : {}) });
      const checked: { index: number; test: FlagTestCase; kind: FlagKind; id: string }[] = [];
      if (parsed.data === null) {
        // An empty file holds no cases.
      } else if (parsed.data !== undefined && !Array.isArray(parsed.data)) {
        issue('', 'must be a list of flag test cases (- name: …, entity: …, user: …, expect: …)');
      } else if (Array.isArray(parsed.data)) {
        if (parsed.data.length > 1000) issue('', `holds ${parsed.data.length} cases; a file holds at most 1000`);
        else {
          for (const [index, item] of parsed.data.entries()) {
            const found = checkCase(item, `[${index}]`, context, issue);
            if (found) checked.push({ index, ...found });
          }
        }
      }
      for (const i of issues) diagnostics.push(parsed.place(i));
      for (const c of checked) {
        const { line, column } = parsed.place({ file, property: `[${c.index}]`, message: '', code: 'flag-test', severity: 'error' });
        tests.push({ file, line, column, kind: c.kind, id: c.id, test: c.test });
      }
    } catch (error) {
      diagnostics.push({ file, property: '', message: `could not be checked: ${(error as Error).message}`, code: 'yaml', severity: 'error', line: 1, column: 1 });
    }
  }
  return { tests, diagnostics };
}

function checkCase(
  item: unknown,
  at: string,
  context: FlagTestContext,
  issue: (property: string, message: string, at?: 'key') => void,
): { test: FlagTestCase; kind: FlagKind; id: string } | undefined {
  const parsed = parseWith(FlagTestCaseSchema, item);
  if (!parsed.ok) {
    for (const e of parsed.errors) {
      const property = e.property === '(body)' ? at : `${at}.${e.property}`;
      issue(property, e.errorMessage, e.errorMessage.startsWith('is not a known field') ? 'key' : undefined);
    }
    // Every problem at once: the entity of a case with a typo elsewhere is still checked.
    const entity = isPlainObject(item) ? item['entity'] : undefined;
    if (typeof entity === 'string' && !parsed.errors.some((e) => e.property === 'entity')) checkEntity(entity, `${at}.entity`, context, issue);
    return undefined;
  }
  const test = parsed.value;
  let ok = true;
  const fail = (property: string, message: string): void => {
    ok = false;
    issue(property, message);
  };
  const [folder = '', id = ''] = test.entity.split('/');
  // The schema admits only the folders of flag kinds.
  const kind = KIND_OF_FOLDER.get(folder) ?? 'gate';
  checkEntity(test.entity, `${at}.entity`, context, fail);
  if (test.environment !== undefined && context.environments !== undefined && !context.environments.includes(test.environment)) {
    const suggestion = didYouMean(test.environment, context.environments);
    fail(`${at}.environment`, `'${test.environment}' is not an environment of flagops.yaml (${context.environments.join(', ')})${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`);
  }
  if (test.sample === undefined) {
    if (test.user === undefined) fail(at, 'gives neither user nor sample: a case evaluates one user, or a sample of generated units');
    else checkExpect(kind, test.expect, `${at}.expect`, fail);
  } else {
    const idType = test.sample.idType ?? 'userID';
    if (idType.toLowerCase() === 'userid' && test.user?.userID !== undefined) fail(`${at}.user.userID`, 'is generated for each unit of a sample: leave it out');
    if (idType.toLowerCase() !== 'userid' && test.user?.customIDs?.[idType] !== undefined) fail(`${at}.user.customIDs.${idType}`, 'is generated for each unit of a sample: leave it out');
    const expect = parseWith(FlagTestSampleExpectSchema, test.expect);
    if (!expect.ok) {
      for (const e of expect.errors) fail(e.property === '(body)' ? `${at}.expect` : `${at}.expect.${e.property}`, e.property === '(body)' ? 'must be { passRate, tolerance, value } for a sampled case' : e.errorMessage);
    } else if (expect.value.value === undefined) {
      if (kind !== 'gate') fail(`${at}.expect`, `needs value: the answer whose share passRate gives (for a ${kind.replace('_', ' ')}, an object its value contains${kind === 'experiment' ? ', or { group: NAME }' : ''})`);
    } else checkExpect(kind, expect.value.value, `${at}.expect.value`, fail);
  }
  return ok ? { test, kind, id } : undefined;
}

/** A case names an entity some file declares; else the closest flag, or the same id under another kind (gates/pricing for dynamic_configs/pricing). */
function checkEntity(entity: string, property: string, context: FlagTestContext, fail: (property: string, message: string) => void): void {
  if (context.declared.includes(entity)) return;
  const flags = context.declared.filter((ref) => FLAG_TEST_FOLDERS.some((f) => ref.startsWith(`${f}/`)));
  const id = entity.slice(entity.indexOf('/') + 1);
  const named = didYouMean(entity, flags) ?? flags.find((ref) => ref.endsWith(`/${id}`));
  fail(property, `names no entity of the repository: no file declares ${entity}${named ? ` (did you mean '${named}'?)` : ''}`);
}

/** The expect of one answer must fit the kind: a gate's boolean, else an object (an experiment's group a text). */
function checkExpect(kind: FlagKind, expect: unknown, property: string, fail: (property: string, message: string) => void): void {
  if (kind === 'gate') {
    if (typeof expect !== 'boolean') fail(property, `must be true or false for a gate, not ${JSON.stringify(expect)}`);
    return;
  }
  const what = kind === 'experiment' ? 'an experiment: { group: NAME } or an object its parameters contain' : `a ${kind.replace('_', ' ')}: an object its value contains`;
  if (!isPlainObject(expect)) fail(property, `must be an object for ${what}`);
  else if (kind === 'experiment' && 'group' in expect && typeof expect['group'] !== 'string') fail(`${property}.group`, 'must be the name of a group');
}
