import { z } from 'zod';

const EmailSchema = z.string().regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address').max(254, 'must be at most 254 characters long');
const RoleNameSchema = z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters long').regex(/^[a-z0-9_]+$/, 'may contain only lower-case letters, digits and underscore');
const ScopesSchema = z.array(z.enum(['omni_read_only'])).describe('omni_read_only makes the key read-only (CONSOLE keys only).');

/**
 * CONSOLE keys call the Console API; SERVER and CLIENT keys are SDK keys, managed here but refused by
 * the Console API (their secrets start `secret-` and `client-`, a console key's `console-`).
 */
export const KEY_TYPES = ['CONSOLE', 'SERVER', 'CLIENT'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

const KeyTypeSchema = z.enum(KEY_TYPES, 'must be CONSOLE, SERVER or CLIENT');
const NameSchema = z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters long');
const EnvironmentsSchema = z
  .array(NameSchema)
  .max(100, 'must list at most 100 environments')
  .describe(
    'CONSOLE keys: the only environments whose rules the key may change (a rule applies to the environments it lists; one without environments to every environment). SDK keys: the environments they serve. Empty or absent: every environment.',
  );
const TargetAppSchema = NameSchema.describe(
  'Primary target app (a name entities list in targetApps). CONSOLE keys with target apps may change only entities that target one of them; for SDK keys it is metadata.',
);
const SecondaryTargetAppsSchema = z.array(NameSchema).max(100, 'must list at most 100 target apps').describe('Further target apps, with the same meaning as targetAppID; needs targetAppID.');

export const KeyCreateSchema = z
  .strictObject({
    description: z.string().max(1000, 'must be at most 1000 characters long').describe('What the key is for.'),
    type: KeyTypeSchema.optional().describe('CONSOLE (default): calls the Console API as its user. SERVER or CLIENT: an SDK key, refused by the Console API.'),
    userEmail: EmailSchema.optional().describe(
      'The user the key belongs to. CONSOLE keys: required; the user is created with the role when new. SDK keys: an existing user, the caller when absent.',
    ),
    role: RoleNameSchema.optional().describe('CONSOLE keys only, required there: role of the user: admin, member, webhook_receiver (a pre-commit webhook receiver), read_only, or a custom role.'),
    scopes: ScopesSchema.optional(),
    environments: EnvironmentsSchema.optional(),
    targetAppID: TargetAppSchema.optional(),
    secondaryTargetAppIDs: SecondaryTargetAppsSchema.optional(),
  })
  .meta({ id: 'KeyCreate', description: 'Body of POST /keys.' });

export const KeyUpdateSchema = z
  .strictObject({
    description: z.string().max(1000, 'must be at most 1000 characters long').optional(),
    role: RoleNameSchema.optional().describe("CONSOLE keys only: changes the role of the key's user."),
    scopes: ScopesSchema.optional(),
    environments: EnvironmentsSchema.optional(),
    targetAppID: TargetAppSchema.nullable().optional().describe('Primary target app; null removes it (and needs secondaryTargetAppIDs empty).'),
    secondaryTargetAppIDs: SecondaryTargetAppsSchema.nullable().optional().describe('Further target apps; null or [] removes them.'),
  })
  .meta({ id: 'KeyUpdate', description: 'Body of PATCH /keys/{id}.' });

export const KeySchema = z
  .strictObject({
    id: z.string(),
    type: KeyTypeSchema.describe('CONSOLE, SERVER or CLIENT.'),
    description: z.string(),
    userEmail: z.string().describe('The user the key belongs to (for SDK keys, its owner).'),
    role: z.string().nullable().describe("The user's role; null for SDK keys, which act as no user."),
    scopes: z.array(z.string()),
    environments: z.array(z.string()).describe('Environments of the key; empty means every environment.'),
    primaryTargetApp: z.string().nullable().describe('Primary target app, or null.'),
    secondaryTargetApps: z.array(z.string()).describe('Further target apps.'),
    isActive: z.boolean(),
    status: z.enum(['active', 'deactivated']).describe('active or deactivated (the same as isActive).'),
    createdTime: z.number(),
    lastRotatedTime: z.number().nullable(),
    key: z.string().optional().describe('The secret; only in the response that creates or rotates the key.'),
  })
  .meta({ id: 'Key', description: 'An API key (never its secret, except once).' });

export const WhoAmISchema = z
  .strictObject({
    userEmail: z.string().describe('User the key belongs to.'),
    keyID: z.string().nullable().describe('Id of the key.'),
    role: z.string().describe("The user's role."),
    permissions: z.array(z.string()).describe('Effective permissions (omni_read_only leaves only read).'),
    environments: z.array(z.string()).describe('The only environments whose rules the key may change; empty means every environment.'),
    targetApps: z.array(z.string()).describe('The key may change only entities that target one of these apps; empty means any entity.'),
  })
  .meta({ id: 'WhoAmI', description: 'Who the calling key acts as.' });

export { RoleNameSchema };
