import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { didYouMean } from './did-you-mean.js';
import { matchesLayerType } from './experiment-rules.js';
import type { Issue, JsonObject, RepoEntity } from './repo-entity.js';
import { isPlainObject } from './validate-entity.js';

/** Condition types whose targetValue names entities of a folder. */
export const CONDITION_REFERENCES: Readonly<Record<string, string>> = {
  passes_gate: 'gates',
  fails_gate: 'gates',
  passes_segment: 'segments',
  fails_segment: 'segments',
};

/** Top-level fields that name entities of a folder (a string or a list of strings). */
export const FIELD_REFERENCES: Readonly<Record<string, string>> = {
  targetingGateID: 'gates',
  gateIDs: 'gates',
  experimentIDs: 'experiments',
  layerID: 'layers',
  layerIDs: 'layers',
  assignmentSourceName: 'assignment_sources',
};

export interface Reference {
  property: string;
  folder: string;
  id: string;
}

/** Every reference an entity makes to another entity, with the property path that makes it. */
export function referencesOf(data: JsonObject): Reference[] {
  const refs: Reference[] = [];
  for (const [field, folder] of Object.entries(FIELD_REFERENCES)) {
    const value = data[field];
    if (typeof value === 'string' && value !== '') refs.push({ property: field, folder, id: value });
    else if (Array.isArray(value)) value.forEach((v, i) => typeof v === 'string' && refs.push({ property: `${field}[${i}]`, folder, id: v }));
  }
  walkReferences(data, '', refs);
  return refs;
}

// The walks are module-level functions, not closures per entity: transpilers that keep function names
// wrap each closure created in a helper call.
function walkReferences(value: unknown, path: string, refs: Reference[]): void {
  if (Array.isArray(value)) value.forEach((item, i) => walkReferences(item, `${path}[${i}]`, refs));
  else if (isPlainObject(value)) {
    // Paths are built only where the walk goes on: most fields hold scalars.
    for (const key of Object.keys(value)) {
      const child = value[key];
      if (key === 'conditions' && Array.isArray(child)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        child.forEach((c, i) => conditionReferences(c, `${childPath}[${i}]`, refs));
      } else if (typeof child === 'object' && child !== null) walkReferences(child, path === '' ? key : `${path}.${key}`, refs);
    }
  }
}

function conditionReferences(condition: unknown, path: string, refs: Reference[]): void {
  if (!isPlainObject(condition) || typeof condition['type'] !== 'string') return;
  const folder = CONDITION_REFERENCES[condition['type'].toLowerCase()];
  if (folder === undefined) return;
  const target = condition['targetValue'];
  if (typeof target === 'string') refs.push({ property: `${path}.targetValue`, folder, id: target });
  else if (Array.isArray(target)) target.forEach((v, i) => refs.push({ property: `${path}.targetValue[${i}]`, folder, id: String(v) }));
}

const DEFAULTS = new Map(ENTITY_SCHEMAS.map((e) => [e.folder, e.defaults]));

/** A field as the console will store it: the file's value, else the kind's default. */
function fieldOf(entity: RepoEntity, field: string): unknown {
  return entity.data[field] ?? DEFAULTS.get(entity.folder)?.[field];
}

function referenceIssue(entity: RepoEntity, property: string, message: string): Issue {
  return { file: entity.file, property, message, code: 'reference', severity: 'error' };
}

/**
 * What the console checks between entities that exist: a holdout and what it holds out randomise on
 * the same idType; an experiment in a layer shares its idType and sets only the layer's parameters,
 * with their types.
 */
function relationIssues(entity: RepoEntity, find: (folder: string, id: string) => RepoEntity | undefined): Issue[] {
  const issues: Issue[] = [];
  if (entity.folder === 'holdouts') {
    for (const [field, folder] of [['gateIDs', 'gates'], ['experimentIDs', 'experiments'], ['layerIDs', 'layers']] as const) {
      const ids = entity.data[field];
      if (!Array.isArray(ids)) continue;
      ids.forEach((id, i) => {
        const target = typeof id === 'string' ? find(folder, id) : undefined;
        if (target && fieldOf(target, 'idType') !== fieldOf(entity, 'idType')) {
          issues.push(referenceIssue(entity, `${field}[${i}]`, `${folder}/${id} uses idType '${String(fieldOf(target, 'idType'))}', the holdout '${String(fieldOf(entity, 'idType'))}'`));
        }
      });
    }
  }
  if (entity.folder === 'experiments' && typeof entity.data['layerID'] === 'string') {
    const layer = find('layers', entity.data['layerID']);
    if (layer) {
      if (fieldOf(layer, 'idType') !== fieldOf(entity, 'idType')) issues.push(referenceIssue(entity, 'idType', `must equal the idType of layers/${layer.id} ('${String(fieldOf(layer, 'idType'))}')`));
      const parameters = new Map(((Array.isArray(layer.data['parameters']) ? layer.data['parameters'] : []) as JsonObject[]).map((p) => [p['name'], p['type']]));
      const groups = (Array.isArray(entity.data['groups']) ? entity.data['groups'] : []) as unknown[];
      groups.forEach((group, i) => {
        const values = isPlainObject(group) && isPlainObject(group['parameterValues']) ? group['parameterValues'] : {};
        for (const [key, value] of Object.entries(values)) {
          const property = `groups[${i}].parameterValues.${key}`;
          if (!parameters.has(key)) issues.push(referenceIssue(entity, property, `is not a parameter of layers/${layer.id} (${[...parameters.keys()].join(', ') || 'it has none'})`));
          else if (!matchesLayerType(parameters.get(key), value)) issues.push(referenceIssue(entity, property, `must be of type ${String(parameters.get(key))}, like the layer's parameter`));
        }
      });
    }
  }
  return issues;
}

function walkEnvironments(value: unknown, path: string, inList: boolean, lists: { property: string; values: unknown[] }[]): void {
  if (Array.isArray(value)) value.forEach((item, i) => walkEnvironments(item, `${path}[${i}]`, true, lists));
  else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      const child = value[key];
      if (key === 'environments' && inList && Array.isArray(child)) lists.push({ property: path === '' ? key : `${path}.${key}`, values: child });
      else if (typeof child === 'object' && child !== null) walkEnvironments(child, path === '' ? key : `${path}.${key}`, false, lists);
    }
  }
}

/** Paths of every rule `environments` list, with its values. */
function environmentLists(data: JsonObject): { property: string; values: unknown[] }[] {
  const lists: { property: string; values: unknown[] }[] = [];
  walkEnvironments(data, '', false, lists);
  if (Array.isArray(data['enabledNonProdEnvironments'])) lists.push({ property: 'enabledNonProdEnvironments', values: data['enabledNonProdEnvironments'] });
  return lists;
}

/**
 * Rules that look across files: one file per entity, references to entities the repository declares
 * (segments and gates named in conditions, holdout/experiment/layer/targeting-gate references), and
 * rule environments that flagops.yaml lists.
 */
export function crossReferenceIssues(entities: readonly RepoEntity[], environments?: readonly string[]): Issue[] {
  const issues: Issue[] = [];
  const idField = new Map(ENTITY_SCHEMAS.map((e) => [e.folder, e.idField]));
  const byFolder = new Map<string, Map<string, RepoEntity>>(ENTITY_SCHEMAS.map((e) => [e.folder, new Map()]));
  for (const entity of entities) {
    const ids = byFolder.get(entity.folder);
    if (!ids) continue;
    const first = ids.get(entity.id);
    if (first) {
      issues.push({ file: entity.file, property: idField.get(entity.folder) ?? 'id', message: `duplicates ${first.file}: ${entity.folder}/${entity.id} is declared twice`, code: 'duplicate-id', severity: 'error' });
    } else ids.set(entity.id, entity);
  }
  const sortedIds = new Map<string, string[]>();
  const known = new Set(environments ?? []);
  for (const entity of entities) {
    for (const ref of referencesOf(entity.data)) {
      const targets = byFolder.get(ref.folder);
      if (!targets || targets.has(ref.id)) continue;
      let candidates = sortedIds.get(ref.folder);
      if (!candidates) sortedIds.set(ref.folder, (candidates = [...targets.keys()].sort()));
      const suggestion = didYouMean(ref.id, candidates);
      issues.push({
        file: entity.file,
        property: ref.property,
        message: `refers to ${ref.folder}/${ref.id}, which no file of the repository declares${suggestion ? ` (did you mean '${suggestion}'?)` : ''}`,
        code: 'reference',
        severity: 'error',
      });
    }
    issues.push(...relationIssues(entity, (folder, id) => byFolder.get(folder)?.get(id)));
    if (environments === undefined) continue;
    for (const list of environmentLists(entity.data)) {
      list.values.forEach((value, i) => {
        if (typeof value !== 'string' || known.has(value)) return;
        const suggestion = didYouMean(value, [...known]);
        issues.push({
          file: entity.file,
          property: `${list.property}[${i}]`,
          message: `names environment '${value}', which flagops.yaml does not list (${[...known].join(', ')})${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
          code: 'environment',
          severity: 'error',
        });
      });
    }
  }
  return issues;
}
