import { z } from 'zod';
import {
  ComputedResponseShape,
  CREATOR_DEFAULTS,
  CreatorShape,
  DescriptionSchema,
  EntityNameSchema,
  IdentifyingNameSchema,
  OwnerSchema,
  responseShape,
  TagsSchema,
  TargetAppsSchema,
  TEAM_DEFAULTS,
  TeamShape,
} from './common.js';

/**
 * An AI config (prompt). It is identified by its name: the create body (POST /prompts) has no id,
 * the response's `id` equals the name, the item path is /prompts/{name} and the config-repo file is
 * prompts/<name>.yaml. The name is fixed once created.
 */
const fields = {
  displayName: EntityNameSchema.nullable().describe('Display name: 3 to 100 characters, letters, digits, underscore, hyphen, period, space.'),
  description: DescriptionSchema,
  targetApps: TargetAppsSchema,
  ...TeamShape,
  tags: TagsSchema,
  ...CreatorShape,
  owner: OwnerSchema.nullable().describe('Owner of the entity; may be absent.'),
};

export const PromptWritableSchema = z.strictObject(fields);
export type PromptWritable = z.infer<typeof PromptWritableSchema>;

/** Values a prompt takes for fields a create leaves out. */
export const PROMPT_DEFAULTS: PromptWritable = {
  displayName: null,
  description: '',
  targetApps: [],
  ...TEAM_DEFAULTS,
  tags: [],
  ...CREATOR_DEFAULTS,
  owner: null,
};

export const PromptCreateSchema = z
  .strictObject({ name: IdentifyingNameSchema.describe('Name of the AI config; identifies it (id = name) and cannot change.'), ...fields })
  .partial()
  .required({ name: true })
  .meta({ id: 'PromptCreate', description: 'Body of POST /prompts.' });

export const PromptPatchSchema = PromptWritableSchema.partial().meta({
  id: 'PromptPartialUpdate',
  description: 'Body of PATCH /prompts/{name}: only the supplied fields change; the name is fixed.',
});

export const PromptSchema = z
  .strictObject({
    id: z.string().describe('Equals the name.'),
    name: EntityNameSchema,
    ...responseShape(fields, ['creatorID', 'creatorEmail']),
    idType: z.string().describe('Unit ID type the AI config is evaluated on.'),
    ...ComputedResponseShape,
  })
  .meta({ id: 'Prompt', description: 'An AI config (prompt) as the console returns it.' });

export type Prompt = z.infer<typeof PromptSchema>;
