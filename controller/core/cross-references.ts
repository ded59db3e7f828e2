import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { LAYER_PARAMETER_TYPES } from '../../schemas/layer.js';
import { didYouMean } from './did-you-mean.js';
import { freeJsonFields } from './free-json-fields.js';
import { matchesLayerType } from './experiment-rules.js';
import type { Issue, JsonObject, RepoEntity } from './repo-entity.js';
import { isPlainObject } from './is-plain-object.js';

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

const FIELD_REFERENCE_ENTRIES = Object.entries(FIELD_REFERENCES);

/** Fields holding a client's own JSON: never walked, whatever keys the JSON has. */
const FREE_JSON = freeJsonFields(ENTITY_SCHEMAS.flatMap((e) => [e.create, e.response]));

/** A value that names an environment, with the property path that holds it. */
type EnvironmentName = { property: string; value: unknown };

/** Adds a list's environment names, each under its own index. */
function pushList(names: EnvironmentName[], property: string, values: unknown[]): void {
  values.forEach((value, i) => names.push({ property: `${property}[${i}]`, value }));
}

/** Every reference an entity makes to another entity, with the property path that makes it. */
export function referencesOf(data: JsonObject): Reference[] {
  const refs: Reference[] = [];
  collect(data, refs, undefined);
  return refs;
}

/** The entity's references and, when `lists` is given, every value that names an environment, in one walk. */
function collect(data: JsonObject, refs: Reference[], lists: EnvironmentName[] | undefined): void {
  for (const [field, folder] of FIELD_REFERENCE_ENTRIES) {
    const value = data[field];
    if (typeof value === 'string' && value !== '') refs.push({ property: field, folder, id: value });
    else if (Array.isArray(value)) value.forEach((v, i) => typeof v === 'string' && refs.push({ property: `${field}[${i}]`, folder, id: v }));
  }
  walk(data, '', false, refs, lists);
  overrideReferences(data, refs);
  if (lists && Array.isArray(data['enabledNonProdEnvironments'])) pushList(lists, 'enabledNonProdEnvironments', data['enabledNonProdEnvironments']);
}

/**
 * Two walks in one: references (`refs` set: conditions' targets, not walked into) and environment
 * names (`lists` set: a list item's `environments` list, as rules have, not walked into, and a list
 * item's `environment`, as every kind's overrides have). A subtree goes on for
 * whichever walk still wants it; each keeps its own order. A module-level function, not a closure per
 * entity (transpilers that keep function names wrap each closure created), and paths are built only
 * where a walk goes on: most fields hold scalars.
 */
function walk(value: unknown, path: string, inList: boolean, refs: Reference[] | undefined, lists: EnvironmentName[] | undefined): void {
  if (Array.isArray(value)) {
    // Only objects hold references or lists: a list of scalars (tags, ids, targets) costs one test per item.
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) walk(item, `${path}[${i}]`, true, refs, lists);
    }
  } else if (isPlainObject(value)) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const child = value[key];
      // Scalars hold nothing to walk (an override's environment is the one scalar read); free JSON is the client's own.
      if (typeof child !== 'object' || child === null || FREE_JSON.has(key)) {
        if (lists && inList && key === 'environment' && typeof child === 'string') lists.push({ property: path === '' ? key : `${path}.${key}`, value: child });
        continue;
      }
      let childRefs = refs;
      let childLists = lists;
      if (refs && key === 'conditions' && Array.isArray(child)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        child.forEach((c, i) => conditionReferences(c, `${childPath}[${i}]`, refs));
        childRefs = undefined;
      }
      if (lists && key === 'environments' && inList && Array.isArray(child)) {
        pushList(lists, path === '' ? key : `${path}.${key}`, child);
        childLists = undefined;
      }
      if (childRefs || childLists) walk(child, path === '' ? key : `${path}.${key}`, false, childRefs, childLists);
    }
  }
}

/** Overrides name gates and segments (experiments: `id`, layers: `name`), and a layer's the experiments of the layer. */
function overrideReferences(data: JsonObject, refs: Reference[]): void {
  for (const [field, idField] of OVERRIDE_FIELDS) {
    const entries = data[field];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, i) => {
      if (!isPlainObject(entry)) return;
      const target = idField === undefined ? undefined : entry[idField];
      if (idField !== undefined && typeof target === 'string') refs.push({ property: `${field}[${i}].${idField}`, folder: entry['type'] === 'segment' ? 'segments' : 'gates', id: target });
      const experiment = entry['experimentName'];
      if (typeof experiment === 'string') refs.push({ property: `${field}[${i}].experimentName`, folder: 'experiments', id: experiment });
    });
  }
}

const OVERRIDE_FIELDS = [
  ['overrides', 'id'],
  ['conditionalOverrides', 'name'],
  ['idOverrides', undefined],
] as const;

function conditionReferences(condition: unknown, path: string, refs: Reference[]): void {
  if (!isPlainObject(condition) || typeof condition['type'] !== 'string') return;
  const folder = CONDITION_REFERENCES[condition['type'].toLowerCase()];
  if (folder === undefined) return;
  const target = condition['targetValue'];
  if (typeof target === 'string') refs.push({ property: `${path}.targetValue`, folder, id: target });
  else if (Array.isArray(target)) target.forEach((v, i) => refs.push({ property: `${path}.targetValue[${i}]`, folder, id: String(v) }));
}

const LAYER_TYPES: ReadonlySet<unknown> = new Set(LAYER_PARAMETER_TYPES);

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
  if (entity.folder === 'layers') {
    for (const field of ['conditionalOverrides', 'idOverrides']) {
      const entries = (Array.isArray(entity.data[field]) ? entity.data[field] : []) as unknown[];
      entries.forEach((entry, i) => {
        const name = isPlainObject(entry) ? entry['experimentName'] : undefined;
        const experiment = typeof name === 'string' ? find('experiments', name) : undefined;
        if (!isPlainObject(entry) || experiment === undefined) return;
        if (experiment.data['layerID'] !== entity.id) return void issues.push(referenceIssue(entity, `${field}[${i}].experimentName`, `experiments/${experiment.id} is not in layers/${entity.id}`));
        const declared = fieldOf(experiment, 'groups');
        const groups = (Array.isArray(declared) ? declared : []).map((g) => (isPlainObject(g) ? g['name'] : undefined));
        if (!groups.includes(entry['groupName'])) issues.push(referenceIssue(entity, `${field}[${i}].groupName`, `names no group of experiments/${experiment.id} ('${String(entry['groupName'])}'); groups: ${groups.join(', ')}`));
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
          const type = parameters.get(key);
          if (!parameters.has(key)) issues.push(referenceIssue(entity, property, `is not a parameter of layers/${layer.id} (${[...parameters.keys()].join(', ') || 'it has none'})`));
          // A type that is none (`strung`) is the layer file's own error: no value could match it.
          else if (LAYER_TYPES.has(type) && !matchesLayerType(type, value)) issues.push(referenceIssue(entity, property, `must be of type ${String(type)}, like the layer's parameter`));
        }
      });
    }
  }
  return issues;
}

/**
 * Rules that look across files: one file per entity, references to entities the repository declares
 * (segments and gates named in conditions, holdout/experiment/layer/targeting-gate references), and
 * environments (of rules, overrides, an experiment's non-production ones) that flagops.yaml lists.
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
    const refs: Reference[] = [];
    const lists: EnvironmentName[] | undefined = environments === undefined ? undefined : [];
    collect(entity.data, refs, lists);
    for (const ref of refs) {
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
    if (lists === undefined) continue;
    for (const { property, value } of lists) {
      if (typeof value !== 'string' || known.has(value)) continue;
      const suggestion = didYouMean(value, [...known]);
      issues.push({
        file: entity.file,
        property,
        message: `names environment '${value}', which flagops.yaml does not list (${[...known].join(', ')})${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
        code: 'environment',
        severity: 'error',
      });
    }
  }
  issues.push(...layerAllocationIssues(byFolder.get('experiments') ?? new Map(), byFolder.get('layers') ?? new Map()));
  return issues;
}

/**
 * The console refuses an experiment whose allocation, with the other experiments of its layer that
 * have not concluded, passes 100%. Whether one has concluded is the console's to know (files carry no
 * status), so a layer whose declared experiments ask for more than 100% in all is a warning, on each
 * of their allocations.
 */
function layerAllocationIssues(experiments: ReadonlyMap<string, RepoEntity>, layers: ReadonlyMap<string, RepoEntity>): Issue[] {
  const byLayer = new Map<string, RepoEntity[]>();
  for (const experiment of experiments.values()) {
    const layerID = experiment.data['layerID'];
    if (typeof layerID !== 'string' || !layers.has(layerID)) continue;
    let members = byLayer.get(layerID);
    if (!members) byLayer.set(layerID, (members = []));
    members.push(experiment);
  }
  const issues: Issue[] = [];
  for (const [layerID, members] of byLayer) {
    const allocations = members.map((e) => ({ e, allocation: fieldOf(e, 'allocation') })).filter((m): m is { e: RepoEntity; allocation: number } => typeof m.allocation === 'number');
    const total = allocations.reduce((sum, m) => sum + m.allocation, 0);
    if (allocations.length < 2 || total <= 100 + 1e-9) continue;
    const shares = allocations.map((m) => `${m.e.id} ${m.allocation}%`).join(', ');
    for (const { e } of allocations) {
      issues.push({
        file: e.file,
        property: 'allocation',
        message: `the experiments of layers/${layerID} ask for ${total}% in all (${shares}): the console refuses the one that passes 100%, counting those that have not concluded`,
        code: 'reference',
        severity: 'warning',
      });
    }
  }
  return issues;
}
