/**
 * The schema of one entity file in a config repository: the kind's create body (one vocabulary for
 * API and files) with the identifying field required, plus `archived` for the kinds that can be
 * archived (a state no create body sets: PUT .../archive). That the id equals the file name, and
 * the rules beyond zod, are checked by `flagops validate`.
 */
import { z } from 'zod';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from './index.js';

/** Kinds with PUT .../archive and .../unarchive: their files may say `archived: true`. */
export const ARCHIVABLE_KINDS: readonly string[] = ENTITY_SCHEMAS.filter((e) => e.archivable).map((e) => e.kind);

/** The file field for the archived state; not a request field (the console's actions set it). */
export const ARCHIVED_FIELD = 'archived';

export const isArchivable = (entry: Pick<EntitySchemaEntry, 'kind'>): boolean => ARCHIVABLE_KINDS.includes(entry.kind);

/** Whether a console read shows the entity archived (`status` Archived, or an experiment's archived). */
export function isArchivedLive(entry: Pick<EntitySchemaEntry, 'kind'>, live: Record<string, unknown>): boolean {
  return isArchivable(entry) && typeof live['status'] === 'string' && live['status'].toLowerCase() === 'archived';
}

const ArchivedSchema = z
  .boolean()
  .optional()
  .describe('true: the entity is archived in the console (PUT .../archive; apply submits an archive review); leave out, or false, for a live one.');

const cache = new Map<string, z.ZodType>();

function pascal(kind: string): string {
  return kind.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase());
}

/** The schema of a kind's identifying field (id or name): what may name one of its files. */
export function entityIdSchema(entry: EntitySchemaEntry): z.ZodType {
  const field = (entry.create as unknown as z.ZodObject).shape[entry.idField] as z.ZodType;
  return field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
}

/** The create schema with the id field required (memoised per kind). */
export function entityFileSchema(entry: EntitySchemaEntry): z.ZodType {
  let schema = cache.get(entry.kind);
  if (schema === undefined) {
    const create = entry.create as unknown as z.ZodObject;
    const object = isArchivable(entry) ? create.extend({ [ARCHIVED_FIELD]: ArchivedSchema }) : create;
    schema = object.required({ [entry.idField]: true } as Record<string, true>).meta({
      id: `${pascal(entry.kind)}File`,
      title: `${entry.folder}/<${entry.idField}>.yaml`,
      description: `One ${entry.kind.replace(/_/g, ' ')} of a flagops config repository: the fields of the create request, ${entry.idField} required and equal to the file name${isArchivable(entry) ? ', and archived: true for an archived one' : ''}.`,
    });
    cache.set(entry.kind, schema);
  }
  return schema;
}

/** Keys a file may set, in the schema's order, the id field first and `archived` last. */
export function entityFileKeys(entry: EntitySchemaEntry): string[] {
  const shape = (entry.create as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  return [entry.idField, ...Object.keys(shape).filter((k) => k !== entry.idField), ...(isArchivable(entry) ? [ARCHIVED_FIELD] : [])];
}

export function entryForFolder(folder: string): EntitySchemaEntry | undefined {
  return ENTITY_SCHEMAS.find((e) => e.folder === folder);
}

export function entryForKind(kind: string): EntitySchemaEntry | undefined {
  return ENTITY_SCHEMAS.find((e) => e.kind === kind);
}
