import { z } from 'zod';

const EmailSchema = z.string().regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address').max(254, 'must be at most 254 characters long');
const RoleNameSchema = z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters long').regex(/^[a-z0-9_]+$/, 'may contain only lower-case letters, digits and underscore');
const ScopesSchema = z.array(z.enum(['omni_read_only'])).describe('omni_read_only makes the key read-only.');

export const KeyCreateSchema = z
  .strictObject({
    description: z.string().max(1000, 'must be at most 1000 characters long').describe('What the key is for.'),
    userEmail: EmailSchema.describe('The user the key belongs to; created with the role when new.'),
    role: RoleNameSchema.describe('Role of the user: admin, member, webhook_receiver (a pre-commit webhook receiver), read_only, or a custom role.'),
    scopes: ScopesSchema.optional(),
  })
  .meta({ id: 'KeyCreate', description: 'Body of POST /keys.' });

export const KeyUpdateSchema = z
  .strictObject({
    description: z.string().max(1000, 'must be at most 1000 characters long').optional(),
    role: RoleNameSchema.optional().describe("Changes the role of the key's user."),
    scopes: ScopesSchema.optional(),
  })
  .meta({ id: 'KeyUpdate', description: 'Body of PATCH /keys/{id}.' });

export const KeySchema = z
  .strictObject({
    id: z.string(),
    description: z.string(),
    userEmail: z.string(),
    role: z.string(),
    scopes: z.array(z.string()),
    isActive: z.boolean(),
    createdTime: z.number(),
    lastRotatedTime: z.number().nullable(),
    key: z.string().optional().describe('The secret; only in the response that creates or rotates the key.'),
  })
  .meta({ id: 'Key', description: 'A console API key (never its secret, except once).' });

export const WhoAmISchema = z
  .strictObject({
    userEmail: z.string().describe('User the key belongs to.'),
    keyID: z.string().nullable().describe('Id of the key.'),
    role: z.string().describe("The user's role."),
    permissions: z.array(z.string()).describe('Effective permissions (omni_read_only leaves only read).'),
  })
  .meta({ id: 'WhoAmI', description: 'Who the calling key acts as.' });

export { RoleNameSchema };
