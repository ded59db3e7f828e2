import { z } from 'zod';
import {
  ComputedResponseShape,
  CREATOR_DEFAULTS,
  CreatorShape,
  DescriptionSchema,
  EntityIdSchema,
  EntityNameSchema,
  JsonArraySchema,
  JsonObjectSchema,
  TagsSchema,
  TargetAppsSchema,
  TEAM_DEFAULTS,
  TeamShape,
} from './common.js';
import { nonFiniteUnionError } from './json-value.js';

export const LAYER_PARAMETER_TYPES = ['string', 'number', 'boolean', 'object', 'array'] as const;

export const LayerParameterSchema = z
  .strictObject({
    name: z
      .string()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters long')
      .describe('Parameter name, unique within the layer; experiment groups set values for it.'),
    type: z.enum(LAYER_PARAMETER_TYPES).describe('Type of the value: string, number, boolean, object or array.'),
    defaultValue: z
      .union([z.string(), z.number(), z.boolean(), JsonObjectSchema, JsonArraySchema], { error: nonFiniteUnionError })
      .describe('Value served when no experiment of the layer assigns the unit; must match type.'),
  })
  .describe('A parameter of a layer.')
  .meta({ id: 'LayerParameter' });

const nonEmpty = (description: string) => z.string().min(1, 'must not be empty').describe(description);
const nullableNonEmpty = (description: string) => z.string().min(1, 'must not be empty').nullable().optional().describe(description);

export const LayerConditionalOverrideSchema = z
  .strictObject({
    type: z.enum(['gate', 'segment']).describe('gate or segment: what the units must pass to be forced into the group.'),
    name: nonEmpty('Id of the gate or segment; must exist.'),
    experimentName: nonEmpty('Id of the experiment of the layer the units are forced into.'),
    groupName: nonEmpty('Name of the group of that experiment.'),
  })
  .describe('Units passing a gate or in a segment are forced into a group of one experiment of the layer.')
  .meta({ id: 'LayerConditionalOverride' });

export const LayerIDOverrideSchema = z
  .strictObject({
    groupName: nonEmpty('Name of the group the ids are forced into.'),
    ids: z.array(z.string().min(1, 'must not be empty')).describe('Unit ids forced into the group.'),
    idType: nullableNonEmpty("Unit ID type of the ids; left out (or null): the layer's idType."),
    environment: nullableNonEmpty('Environment the override applies in; left out (or null): every environment.'),
    experimentName: nullableNonEmpty('Id of the experiment of the layer whose group it is.'),
  })
  .describe('Unit ids forced into a group of an experiment of the layer.')
  .meta({ id: 'LayerIDOverride' });

const overrideFields = {
  conditionalOverrides: z.array(LayerConditionalOverrideSchema).describe('Gates and segments whose units are forced into a group; one entry per gate or segment.'),
  idOverrides: z.array(LayerIDOverrideSchema).describe('Unit ids forced into a group; an id is in at most one group per ID type and environment.'),
};

/** Data of GET and body of POST /layers/{id}/overrides (the reference's LayerOverridesDto). */
export const LayerOverridesSchema = z.strictObject(overrideFields).meta({ id: 'LayerOverrides', description: "A layer's overrides." });

/** Body of PATCH /layers/{id}/overrides (the reference's LayerOverridesPatchDto, `op` optional) and of DELETE. */
export const LayerOverridesChangeSchema = z
  .strictObject({ op: z.literal('add').optional().describe('add (the only operation; PATCH adds).'), ...overrideFields })
  .partial()
  .meta({
    id: 'LayerOverridesChange',
    description: 'PATCH adds the entries (an entry for the same gate or segment is replaced; ids join the entry of the same experiment, group, ID type and environment); DELETE removes them.',
  });

/** Writable fields of a layer. */
const fields = {
  name: EntityNameSchema,
  description: DescriptionSchema,
  idType: z.string().min(1, 'must not be empty').describe('Unit ID type; experiments of the layer must use the same.'),
  parameters: z.array(LayerParameterSchema).describe('Parameters the experiments of the layer share.'),
  targetApps: TargetAppsSchema,
  tags: TagsSchema,
  ...overrideFields,
  ...TeamShape,
  ...CreatorShape,
};

export const LayerWritableSchema = z.strictObject(fields);
export type LayerWritable = z.infer<typeof LayerWritableSchema>;

/** Values a layer takes for fields a create or full update leaves out. */
export const LAYER_DEFAULTS: Omit<LayerWritable, 'name'> = {
  description: '',
  idType: 'userID',
  parameters: [],
  targetApps: [],
  tags: [],
  conditionalOverrides: [],
  idOverrides: [],
  ...TEAM_DEFAULTS,
  ...CREATOR_DEFAULTS,
};

export const LayerCreateSchema = z
  .strictObject({ ...fields, id: EntityIdSchema.describe('Layer id; derived from name when missing ("A Layer" becomes "a_layer").') })
  .partial()
  .required({ name: true })
  .meta({ id: 'LayerCreate', description: 'Body of POST /layers.' });

export const LayerUpdateSchema = LayerWritableSchema.partial()
  .required({ description: true, parameters: true })
  .meta({ id: 'LayerFullUpdate', description: 'Body of POST /layers/{id}: fields left out take their defaults.' });

export const LayerPatchSchema = LayerWritableSchema.partial().meta({
  id: 'LayerPartialUpdate',
  description: 'Body of PATCH /layers/{id}: only the supplied fields change. idType and parameters used by experiments are fixed.',
});

export const LayerSchema = z
  .strictObject({
    id: EntityIdSchema,
    ...fields,
    isImplicitLayer: z.boolean().describe('True for a layer the console made implicitly; layers made through the API are explicit.'),
    ...ComputedResponseShape,
  })
  .meta({ id: 'Layer', description: 'A layer as the console returns it.' });

export type Layer = z.infer<typeof LayerSchema>;
