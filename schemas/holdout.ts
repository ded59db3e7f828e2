import { z } from 'zod';
import {
  CREATOR_DEFAULTS,
  CreatorShape,
  DescriptionSchema,
  EntityIdSchema,
  EntityNameSchema,
  MonitoringMetricSchema,
  NullableStringSchema,
  PermalinkShape,
  responseShape,
  ServerFieldsShape,
  TagsSchema,
  TargetAppsSchema,
  TEAM_DEFAULTS,
  TeamShape,
} from './common.js';

export const HoldoutPercentageSchema = z
  .number()
  .min(0, 'must be between 0 and 10')
  .max(10, 'must be between 0 and 10')
  .describe('Percentage of units held out, 0 to 10 inclusive.');

const idList = (what: string) => z.array(z.string().min(1, 'must not be empty')).describe(`Ids of the ${what} the holdout applies to; each must exist.`);

/** Writable fields of a holdout (the body of PATCH /holdouts/{id}, plus name and the common metadata). */
const fields = {
  name: EntityNameSchema,
  description: DescriptionSchema,
  idType: z.string().min(1, 'must not be empty').describe('Unit ID type; the gates, experiments and layers it names must use the same.'),
  isEnabled: z.boolean().describe('Enables or disables the holdout.'),
  passPercentage: HoldoutPercentageSchema,
  gateIDs: idList('gates'),
  experimentIDs: idList('experiments'),
  layerIDs: idList('layers (every experiment in them)'),
  isGlobal: z.boolean().describe('Whether the holdout applies to every gate created after it.'),
  targetingGateID: NullableStringSchema.describe('Gate whose passing units the holdout targets; must exist.'),
  monitoringMetrics: z.array(MonitoringMetricSchema).describe('Metrics monitored for the holdout.'),
  tags: TagsSchema,
  targetApps: TargetAppsSchema,
  ...TeamShape,
  ...CreatorShape,
};

export const HoldoutWritableSchema = z.strictObject(fields);
export type HoldoutWritable = z.infer<typeof HoldoutWritableSchema>;

/** Values a holdout takes for fields a create or full update leaves out. */
export const HOLDOUT_DEFAULTS: Omit<HoldoutWritable, 'name'> = {
  description: '',
  idType: 'userID',
  isEnabled: true,
  passPercentage: 0,
  gateIDs: [],
  experimentIDs: [],
  layerIDs: [],
  isGlobal: false,
  targetingGateID: null,
  monitoringMetrics: [],
  tags: [],
  targetApps: [],
  ...TEAM_DEFAULTS,
  ...CREATOR_DEFAULTS,
};

export const HoldoutCreateSchema = z
  .strictObject({ ...fields, id: EntityIdSchema.describe('Holdout id; derived from name when missing.') })
  .partial()
  .required({ name: true })
  .meta({ id: 'HoldoutCreate', description: 'Body of POST /holdouts.' });

export const HoldoutUpdateSchema = HoldoutWritableSchema.partial()
  .required({ isEnabled: true, description: true, passPercentage: true, gateIDs: true, experimentIDs: true, layerIDs: true, isGlobal: true, targetingGateID: true })
  .meta({ id: 'HoldoutFullUpdate', description: 'Body of POST /holdouts/{id}: fields left out take their defaults.' });

export const HoldoutPatchSchema = HoldoutWritableSchema.partial().meta({
  id: 'HoldoutPartialUpdate',
  description: 'Body of PATCH /holdouts/{id}: only the supplied fields change.',
});

export const HoldoutSchema = z
  .strictObject({
    id: EntityIdSchema,
    ...responseShape(fields, ['targetingGateID', 'team', 'teamID', 'creatorID', 'creatorEmail']),
    ...ServerFieldsShape,
    ...PermalinkShape,
  })
  .meta({ id: 'Holdout', description: 'A holdout as the console returns it.' });

export type Holdout = z.infer<typeof HoldoutSchema>;
