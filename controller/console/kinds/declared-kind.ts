import { ENTITY_SCHEMAS } from '../../../schemas/index.js';
import { entityRuleErrors } from '../../core/entity-rules.js';
import type { KindDef } from './kind-def.js';

/** What a kind's declaration (schemas/index.ts) already says: the console reads it from there. */
type Declared = 'kind' | 'path' | 'itemPath' | 'label' | 'tag' | 'idField' | 'schemas' | 'defaults' | 'deletable';

/** What the console does for a kind beyond what its declaration says; `validate` holds the rules that read other entities. */
export type KindBehaviour = Omit<KindDef, Declared>;

/**
 * The console's definition of a declared kind: identity, paths, schemas and defaults from the
 * declaration, validation the file rules (the ones `flagops validate` runs) followed by `behaviour`'s
 * rules that read other entities. A kind with no behaviour gets plain create, read, update and delete.
 */
export function declaredKind(kind: string, behaviour: KindBehaviour = {}): KindDef {
  const entry = ENTITY_SCHEMAS.find((e) => e.kind === kind);
  if (entry === undefined) throw new Error(`The kind ${kind} is not declared in schemas/index.ts.`);
  const { validate } = behaviour;
  const schemas: KindDef['schemas'] = { create: entry.createRequest ?? entry.create, response: entry.response };
  if (entry.update !== undefined) schemas.update = entry.update;
  if (entry.patch !== undefined) schemas.patch = entry.patch;
  const def: KindDef = {
    ...behaviour,
    kind,
    path: entry.apiPath ?? entry.folder,
    label: entry.label,
    tag: entry.plural,
    idField: entry.idField,
    schemas,
    defaults: entry.defaults,
    deletable: entry.deletable !== false,
    validate: validate === undefined ? (entity) => entityRuleErrors(kind, entity) : (entity, lookup, previous) => [...entityRuleErrors(kind, entity), ...validate(entity, lookup, previous)],
  };
  if (entry.itemPath !== undefined) def.itemPath = entry.itemPath;
  return def;
}
