/**
 * The schema of one entity file in a config repository: the kind's create body (one vocabulary for
 * API and files) with the identifying field required. That the id equals the file name, and the
 * rules beyond zod, are checked by `flagops validate`.
 */
import type { z } from 'zod';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from './index.js';

const cache = new Map<string, z.ZodType>();

function pascal(kind: string): string {
  return kind.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase());
}

/** The create schema with the id field required (memoised per kind). */
export function entityFileSchema(entry: EntitySchemaEntry): z.ZodType {
  let schema = cache.get(entry.kind);
  if (schema === undefined) {
    const object = entry.create as unknown as z.ZodObject;
    schema = object.required({ [entry.idField]: true } as Record<string, true>).meta({
      id: `${pascal(entry.kind)}File`,
      title: `${entry.folder}/<${entry.idField}>.yaml`,
      description: `One ${entry.kind.replace(/_/g, ' ')} of a flagops config repository: the fields of the create request, ${entry.idField} required and equal to the file name.`,
    });
    cache.set(entry.kind, schema);
  }
  return schema;
}

/** Writable keys a file may set, in the schema's order, the id field first. */
export function entityFileKeys(entry: EntitySchemaEntry): string[] {
  const shape = (entry.create as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  return [entry.idField, ...Object.keys(shape).filter((k) => k !== entry.idField)];
}

export function entryForFolder(folder: string): EntitySchemaEntry | undefined {
  return ENTITY_SCHEMAS.find((e) => e.folder === folder);
}

export function entryForKind(kind: string): EntitySchemaEntry | undefined {
  return ENTITY_SCHEMAS.find((e) => e.kind === kind);
}
