import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../../schemas/index.js';
import { parseOwnedPath, type OwnedStep } from './console-owned.js';
import { didYouMean } from './did-you-mean.js';
import type { Issue, RepoEntity } from './repo-entity.js';
import { ZOD_WRAPPERS, zodDefOf as defOf, type ZodDef as Def } from './zod-def.js';

/** The schema under its wrappers (optional, default, a pipe's input): what a file writes there. */
function unwrap(schema: unknown): Def | undefined {
  let def = defOf(schema);
  for (let i = 0; def !== undefined && i < 16; i++) {
    if (ZOD_WRAPPERS.has(def.type ?? '')) def = defOf(def.innerType);
    else if (def.type === 'pipe') def = defOf(def.in);
    else return def;
  }
  return def;
}

/** The fields an object schema (or a union of objects) has, by name; undefined for anything else. */
function fieldsOf(def: Def | undefined): Record<string, unknown> | undefined {
  if (def?.type === 'object') return def.shape;
  if (def?.type !== 'union') return undefined;
  const shapes = (def.options ?? []).map((o) => fieldsOf(unwrap(o))).filter((s): s is Record<string, unknown> => s !== undefined);
  return shapes.length > 0 ? Object.assign({}, ...shapes) : undefined;
}

const show = (steps: readonly OwnedStep[], upTo: number): string => steps.slice(0, upTo + 1).map((s) => `${s.key}${s.each ? '[*]' : ''}`).join('.');

/** What is wrong with an owned path for a kind, or undefined when it names a field of the kind. */
function pathProblem(entry: EntitySchemaEntry, path: string): string | undefined {
  const steps = parseOwnedPath(path);
  if (!steps) return undefined; // the schema's pattern reports it
  const first = steps[0]?.key;
  if (first === entry.idField || first === 'tags') return `'${first}' is flagops' to write (it names the entity, or carries flagops' tags): the console cannot own it`;
  let def = unwrap(entry.create);
  for (const [i, step] of steps.entries()) {
    const fields = fieldsOf(def);
    const where = i === 0 ? `a ${entry.kind}` : `${show(steps, i - 1)}`;
    if (fields === undefined) return `${show(steps, i - 1)} holds a value, not fields: own ${show(steps, i - 1)} whole`;
    if (!Object.hasOwn(fields, step.key) || step.key.endsWith('Json5')) {
      const suggestion = didYouMean(step.key, Object.keys(fields).filter((k) => !k.endsWith('Json5')));
      return `'${step.key}' is no field of ${where}${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`;
    }
    def = unwrap(fields[step.key]);
    if (step.each) {
      if (def?.type !== 'array') return `${show(steps, i).slice(0, -3)} is not a list: leave out [*]`;
      def = unwrap(def.element);
    } else if (def?.type === 'array' && i < steps.length - 1) return `${show(steps, i)} is a list: write ${show(steps, i)}[*] for each of its items`;
  }
  return undefined;
}

/**
 * `ownership.console` of flagops.yaml: each key a kind folder or `<folder>/<id>`, each path a field
 * of that kind. A path naming no field would own nothing while the team believes the console owns it;
 * an entity key that no file declares is a warning (the file may come later), as for drift.entities.
 */
export function ownershipIssues(file: string, ownership: Readonly<Record<string, readonly string[]>>, declared: readonly RepoEntity[]): Issue[] {
  const folders = ENTITY_SCHEMAS.map((e) => e.folder);
  const names = new Set(declared.map((e) => `${e.folder}/${e.id}`));
  const issues: Issue[] = [];
  for (const [key, paths] of Object.entries(ownership)) {
    const slash = key.indexOf('/');
    const folder = slash < 0 ? key : key.slice(0, slash);
    const property = `ownership.console.${key}`;
    const entry = ENTITY_SCHEMAS.find((e) => e.folder === folder);
    if (entry === undefined) {
      const suggestion = didYouMean(folder, folders);
      issues.push({ file, property, message: `names the folder '${folder}', which is no kind folder (${suggestion ? `did you mean '${suggestion}'?` : folders.join(', ')})`, code: 'repo-config', severity: 'error', at: 'key' });
      continue;
    }
    if (slash >= 0 && !names.has(key)) {
      const suggestion = didYouMean(key, [...names].filter((n) => n.startsWith(`${folder}/`)));
      issues.push({ file, property, message: `names ${key}, which no file of the repository declares: it owns nothing${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`, code: 'repo-config', severity: 'warning', at: 'key' });
    }
    paths.forEach((path, i) => {
      const problem = pathProblem(entry, path);
      if (problem !== undefined) issues.push({ file, property: `${property}[${i}]`, message: problem, code: 'repo-config', severity: 'error' });
    });
  }
  return issues;
}
