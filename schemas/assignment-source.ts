import { z } from 'zod';
import {
  DescriptionSchema,
  IdentifyingNameSchema,
  NullableStringSchema,
  OwnerSchema,
  PermalinkShape,
  responseShape,
  ServerFieldsShape,
  TagsSchema,
  TEAM_DEFAULTS,
  TeamShape,
} from './common.js';

export const ScheduledReloadHourSchema = z
  .number()
  .int('must be an integer')
  .min(0, 'must be an integer from 0 to 23')
  .max(23, 'must be an integer from 0 to 23')
  .nullable()
  .describe('UTC hour (0 to 23) of the scheduled scan, or null for none.');

const column = (what: string) => z.string().min(1, 'must not be empty').describe(`Column holding the ${what}.`);

export const IdTypeMappingSchema = z
  .strictObject({
    statsigUnitID: z.string().min(1, 'must not be empty').describe('Unit ID type, e.g. userID.'),
    column: z.string().min(1, 'must not be empty').describe('Column holding that unit ID.'),
  })
  .describe('Maps a unit ID type to a column.')
  .meta({ id: 'IdTypeMapping' });

/**
 * Writable fields of an experiment assignment source. It is identified by its name (the item path is
 * /experiments/assignment_source/{name}); a full update or patch that sets another name renames it.
 */
const fields = {
  name: IdentifyingNameSchema.describe('Unique name; identifies the source.'),
  description: DescriptionSchema.describe('Purpose of the source, at most 1000 characters.'),
  isVerified: z.boolean().describe('Marks the source as verified.'),
  tags: TagsSchema,
  sql: z.string().min(1, 'must not be empty').describe('Query that yields the assignment rows.'),
  timestampColumn: column('assignment timestamp'),
  experimentIDColumn: column('experiment ID'),
  groupIDColumn: column('group ID'),
  groupNameColumn: NullableStringSchema.describe('Optional column holding the group name.'),
  idTypeMapping: z.array(IdTypeMappingSchema).min(1, 'must map at least one unit ID type').describe('Maps unit ID types to columns.'),
  isReadOnly: z.boolean().describe('True means editable only through this API.'),
  owner: OwnerSchema.nullable().describe('Owner of the entity; may be absent.'),
  ...TeamShape,
  scheduledReloadHour: ScheduledReloadHourSchema,
};

export const AssignmentSourceWritableSchema = z.strictObject(fields);
export type AssignmentSourceWritable = z.infer<typeof AssignmentSourceWritableSchema>;

const REQUIRED = { sql: true, timestampColumn: true, experimentIDColumn: true, groupIDColumn: true, idTypeMapping: true } as const;

/** Values an assignment source takes for fields a create or full update leaves out. */
export const ASSIGNMENT_SOURCE_DEFAULTS: Omit<AssignmentSourceWritable, 'name' | keyof typeof REQUIRED> = {
  description: '',
  isVerified: false,
  tags: [],
  groupNameColumn: null,
  isReadOnly: false,
  owner: null,
  ...TEAM_DEFAULTS,
  scheduledReloadHour: null,
};

const DryRunShape = {
  dryRun: z.boolean().describe('When true, the source is validated and nothing is persisted.'),
} as const;

/** The create vocabulary (also the vocabulary of assignment_sources/<name>.yaml): no dryRun. */
export const AssignmentSourceCreateSchema = AssignmentSourceWritableSchema.partial()
  .required({ name: true, ...REQUIRED })
  .meta({ id: 'AssignmentSourceCreate', description: 'Fields of POST /experiments/assignment_sources and of an assignment source file.' });

export const AssignmentSourceCreateRequestSchema = AssignmentSourceWritableSchema.extend(DryRunShape)
  .partial()
  .required({ name: true, ...REQUIRED })
  .meta({ id: 'AssignmentSourceCreateRequest', description: 'Body of POST /experiments/assignment_sources; dryRun validates only.' });

export const AssignmentSourceUpdateSchema = AssignmentSourceWritableSchema.extend(DryRunShape)
  .partial()
  .required(REQUIRED)
  .meta({ id: 'AssignmentSourceFullUpdate', description: 'Body of POST /experiments/assignment_source/{name}: fields left out take their defaults; a new name renames.' });

export const AssignmentSourcePatchSchema = AssignmentSourceWritableSchema.extend(DryRunShape)
  .partial()
  .meta({ id: 'AssignmentSourcePartialUpdate', description: 'Body of PATCH /experiments/assignment_source/{name}: only the supplied fields change; dryRun validates only.' });

export const AssignmentSourceSchema = z
  .strictObject({
    ...responseShape(fields, ['team', 'teamID', 'scheduledReloadHour']),
    ...ServerFieldsShape,
    ...PermalinkShape,
  })
  .meta({ id: 'AssignmentSource', description: 'An experiment assignment source as the console returns it.' });

export type AssignmentSource = z.infer<typeof AssignmentSourceSchema>;
