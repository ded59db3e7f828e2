import { z } from 'zod';
import { RoleNameSchema } from './key.js';

/** Permissions a role may hold. `bypass_precommit_webhook` is the reference API's "Bypass Pre-commit Webhook". */
export const PERMISSIONS = [
  'read',
  'write',
  'submit_reviews',
  'approve_reviews',
  'self_approve_review',
  'commit_reviews',
  'bypass_reviews',
  'bypass_precommit_webhook',
  'validate_changes',
  'manage_settings',
  'manage_keys',
  'manage_roles',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

const PermissionsSchema = z.array(z.enum(PERMISSIONS)).describe(`Permissions: ${PERMISSIONS.join(', ')}.`);

export const RoleCreateSchema = z
  .strictObject({ name: RoleNameSchema, permissions: PermissionsSchema })
  .meta({ id: 'RoleCreate', description: 'Body of POST /roles.' });

export const RoleUpdateSchema = z.strictObject({ permissions: PermissionsSchema }).meta({ id: 'RoleUpdate', description: 'Body of PATCH /roles/{name}.' });

export const RoleSchema = z
  .strictObject({ name: z.string(), permissions: z.array(z.string()), builtin: z.boolean() })
  .meta({ id: 'Role', description: 'A role and its permissions.' });
