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

/** Writable fields of a layer. */
const fields = {
  name: EntityNameSchema,
  description: DescriptionSchema,
  idType: z.string().min(1, 'must not be empty').describe('Unit ID type; experiments of the layer must use the same.'),
  parameters: z.array(LayerParameterSchema).describe('Parameters the experiments of the layer share.'),
  targetApps: TargetAppsSchema,
  tags: TagsSchema,
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
