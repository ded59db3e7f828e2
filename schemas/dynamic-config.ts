import { z } from 'zod';
import {
  ActiveReviewShape,
  ComputedResponseShape,
  CREATOR_DEFAULTS,
  CreatorShape,
  DescriptionSchema,
  EntityIdSchema,
  EntityNameSchema,
  JsonObjectSchema,
  NullableStringSchema,
  OwnerSchema,
  responseShape,
  TagsSchema,
  TargetAppsSchema,
  TEAM_DEFAULTS,
  TeamShape,
} from './common.js';
import { DynamicConfigRuleSchema, RuleResponseShape } from './rule.js';

/** Writable fields of a dynamic config (the bodies of POST and PATCH /dynamic_configs/{id}). */
const fields = {
  name: EntityNameSchema,
  description: DescriptionSchema,
  isEnabled: z.boolean().describe('Whether the config is served; default true.'),
  rules: z.array(DynamicConfigRuleSchema).describe('Rules, evaluated in order.'),
  defaultValue: JsonObjectSchema.describe('Fallback JSON object when no rule triggers.'),
  defaultValueJson5: z.string().nullable().describe('JSON5 form of defaultValue; comments allowed; must parse to the same JSON.'),
  idType: z.string().min(1, 'must not be empty').describe('Unit ID type the config is evaluated on.'),
  tags: TagsSchema,
  ...CreatorShape,
  owner: OwnerSchema.nullable(),
  schema: z.string().nullable().describe('JSON Schema (draft 2020-12) text that defaultValue and every return value must satisfy.'),
  schemaJson5: z.string().nullable().describe('schema in JSON5, comments allowed; must parse to the same JSON as schema.'),
  targetApps: TargetAppsSchema,
  ...TeamShape,
  releasePipelineID: NullableStringSchema.describe('Release pipeline id.'),
};

export const DynamicConfigWritableSchema = z.strictObject(fields);
export type DynamicConfigWritable = z.infer<typeof DynamicConfigWritableSchema>;

export const DYNAMIC_CONFIG_DEFAULTS: Omit<DynamicConfigWritable, 'name'> = {
  description: '',
  isEnabled: true,
  rules: [],
  defaultValue: {},
  defaultValueJson5: null,
  idType: 'userID',
  tags: [],
  ...CREATOR_DEFAULTS,
  owner: null,
  schema: null,
  schemaJson5: null,
  targetApps: [],
  ...TEAM_DEFAULTS,
  releasePipelineID: null,
};

export const DynamicConfigCreateSchema = z
  .strictObject({
    ...fields,
    id: EntityIdSchema.describe('Config id; derived from name when missing.'),
    isTemplate: z.boolean().describe('Create as a template.'),
  })
  .partial()
  .required({ name: true })
  .meta({ id: 'DynamicConfigCreate', description: 'Body of POST /dynamic_configs.' });

export const DynamicConfigUpdateSchema = DynamicConfigWritableSchema.partial()
  .required({ isEnabled: true, description: true, rules: true })
  .meta({ id: 'DynamicConfigFullUpdate', description: 'Body of POST /dynamic_configs/{id}: a full update.' });

export const DynamicConfigPatchSchema = DynamicConfigWritableSchema.partial().meta({
  id: 'DynamicConfigPartialUpdate',
  description: 'Body of PATCH /dynamic_configs/{id}: only the supplied fields change.',
});

export const DynamicConfigSchema = z
  .strictObject({
    id: EntityIdSchema,
    ...responseShape(fields, ['creatorID', 'creatorEmail', 'schema', 'schemaJson5', 'team', 'teamID', 'releasePipelineID']),
    rules: z.array(DynamicConfigRuleSchema.extend(RuleResponseShape)),
    isTemplate: z.boolean().describe('Whether this config is a template.'),
    status: z.enum(['Enabled', 'Disabled', 'Archived']).describe('Archived while archived (PUT .../archive, .../unarchive), else Enabled or Disabled as isEnabled says.'),
    ...ActiveReviewShape,
    ...ComputedResponseShape,
  })
  .meta({ id: 'DynamicConfig', description: 'A dynamic config as the console returns it.' });

export type DynamicConfig = z.infer<typeof DynamicConfigSchema>;
