/**
 * Shared atoms of the entity schemas. Every limit of the reference API lives here once; entity files combine them.
 */
import { z } from 'zod';
import { nonFiniteUnionError } from './json-value.js';

export const ID_CHARSET = /^[A-Za-z0-9_.-]+$/;
export const NAME_CHARSET = /^[A-Za-z0-9_. -]+$/;

export const EntityIdSchema = z
  .string()
  .min(3, 'must be 3 to 100 characters long')
  .max(100, 'must be 3 to 100 characters long')
  .regex(ID_CHARSET, 'may contain only letters, digits, underscore, hyphen and period')
  .describe('Name ID: 3 to 100 characters, letters, digits, underscore, hyphen, period (no space).');

export const EntityNameSchema = z
  .string()
  .min(3, 'must be 3 to 100 characters long')
  .max(100, 'must be 3 to 100 characters long')
  .regex(NAME_CHARSET, 'may contain only letters, digits, underscore, hyphen, period and space')
  .describe('Display name: 3 to 100 characters, letters, digits, underscore, hyphen, period, space.');

/**
 * The name of a kind identified by its name (AI configs, assignment sources): the name is the id in
 * paths and file names, so 'abc', 'abc ' and ' abc ' would be three entities that look like one.
 */
export const IdentifyingNameSchema = EntityNameSchema.regex(/^[^ ](?:.*[^ ])?$/, 'must not start or end with a space: the name is the id').describe(
  'Name and id: 3 to 100 characters, letters, digits, underscore, hyphen, period, space (not first or last).',
);

export const DescriptionSchema = z
  .string()
  .max(1000, 'must be at most 1000 characters long')
  .describe('Free text, at most 1000 characters.');

export const TagsSchema = z.array(z.string().min(1, 'must not be empty')).describe('Tags.');
export const TargetAppsSchema = z.array(z.string().min(1, 'must not be empty')).describe('Target application names.');
export const NullableStringSchema = z.string().nullable();
export const PercentageSchema = z
  .number()
  .min(0, 'must be between 0 and 100')
  .max(100, 'must be between 0 and 100')
  .describe('Percentage, 0 to 100.');

/** Team fields of every kind (Enterprise). */
export const TeamShape = {
  team: NullableStringSchema.describe('Team name (Enterprise).'),
  teamID: NullableStringSchema.describe('Team id (Enterprise).'),
} as const;

/** Who created the entity, as a client may state it; the console fills in the caller when absent. */
export const CreatorShape = {
  creatorID: NullableStringSchema.describe('Creator id.'),
  creatorEmail: NullableStringSchema.describe('Creator e-mail.'),
} as const;

/** What TeamShape's fields are when a create or full update leaves them out. */
export const TEAM_DEFAULTS = { team: null, teamID: null } as const;
/** What CreatorShape's fields are when left out (the console then stamps the caller). */
export const CREATOR_DEFAULTS = { creatorID: null, creatorEmail: null } as const;

export { JsonArraySchema, JsonObjectSchema } from './json-value.js';

export const OwnerSchema = z
  .strictObject({
    ownerID: z.string().optional().describe('Owner id.'),
    ownerType: z.string().optional().describe('USER, SDK_KEY, ...'),
    ownerName: z.string().optional().describe('Owner display name.'),
    ownerEmail: z.string().optional().describe('Owner e-mail.'),
  })
  .describe('Owner of the entity; may be absent.')
  .meta({ id: 'Owner' });

export const ConditionSchema = z
  .strictObject({
    type: z.string().min(1, 'must not be empty').describe('Condition type: public, user_id, email, app_version, passes_gate, passes_segment, ...'),
    targetValue: z
      .union([z.array(z.union([z.string(), z.number()], { error: nonFiniteUnionError })), z.string(), z.number()], { error: nonFiniteUnionError })
      .nullable()
      .optional()
      .describe('Values to compare with; an array of strings in requests.'),
    operator: z.string().nullable().optional().describe('Comparison operator: any, none, gt, lt, str_contains_any, ...'),
    field: z.string().nullable().optional().describe('Field for custom_field conditions.'),
    customID: z.string().nullable().optional().describe('Custom unit ID type.'),
  })
  .describe('A targeting condition.')
  .meta({ id: 'Condition' });

export const ReviewerSchema = z
  .strictObject({
    id: z.string().optional().describe('Reviewer id.'),
    name: z.string().optional().describe('Reviewer name.'),
    email: z.string().optional().describe('Reviewer e-mail: the e-mail of the console user who may approve.'),
  })
  .describe('A reviewer allowed to approve.');

export const ReviewSettingsSchema = z
  .strictObject({
    requiredReview: z.boolean().describe('Whether reviews are required.'),
    allowedReviewers: z.array(ReviewerSchema).default([]).describe('Who may approve; empty means anyone with approve_reviews.'),
  })
  .describe('Review settings of the entity.')
  .meta({ id: 'ReviewSettings' });

export const AutomatedRolloutSchema = z.strictObject({
  passPercent: z.number().describe('Pass percentage reached.'),
  time: z.number().describe('Epoch milliseconds.'),
});

export const MonitoringMetricSchema = z
  .strictObject({
    name: z.string().min(1, 'must not be empty').describe('Metric name.'),
    type: z.string().min(1, 'must not be empty').describe('Metric type.'),
  })
  .describe('A monitoring metric.');

/** Fields every entity response carries that the server manages. */
export const ServerFieldsShape = {
  version: z.number().int().describe('Integer version, bumped on every change.'),
  createdTime: z.number().describe('Epoch milliseconds.'),
  creatorName: z.string().describe('Display name of the creating user.'),
  lastModifiedTime: z.number().describe('Epoch milliseconds.'),
  lastModifierID: z.string().describe('Id of the last modifying user.'),
  lastModifierName: z.string().describe('Name of the last modifying user.'),
  lastModifierEmail: z.string().nullable().describe('E-mail of the last modifying user.'),
} as const;

/** Names of the server-managed fields; files and request bodies may not set them. */
export const SERVER_FIELDS = [
  ...Object.keys(ServerFieldsShape),
  'permalink',
  'holdoutIDs',
  'checksPerHour',
  'store0100Exposures',
] as const;

type NullToOptional<S> = S extends z.ZodNullable<infer I> ? z.ZodOptional<I> : S extends z.ZodOptional<z.ZodNullable<infer I>> ? z.ZodOptional<I> : S;
export type ResponseShape<T extends z.ZodRawShape, K extends keyof T> = { [P in keyof T]: P extends K ? T[P] : NullToOptional<T[P]> };

/**
 * The response form of writable fields. Requests may send null to clear a field; where the reference API
 * types the field without null, a response then leaves it out instead of sending null. `nullable`
 * names the fields the reference API types nullable, which keep their null.
 */
export function responseShape<T extends z.ZodRawShape, K extends keyof T = never>(shape: T, nullable: readonly K[] = []): ResponseShape<T, K> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    const inner: unknown = field instanceof z.ZodOptional ? field.unwrap() : field;
    if (inner instanceof z.ZodNullable && !(nullable as readonly string[]).includes(key)) {
      const optional = (inner.unwrap() as z.ZodType).optional();
      const description = (field as z.ZodType).description ?? (inner as z.ZodType).description;
      out[key] = description === undefined ? optional : optional.describe(description);
    } else out[key] = field;
  }
  return out as ResponseShape<T, K>;
}

export const PermalinkShape = {
  permalink: z.string().describe('Link to the entity in the console.'),
} as const;

export const HoldoutIDsShape = {
  holdoutIDs: z.array(z.string()).describe('Holdouts that apply to this entity (computed).'),
} as const;

/** The newest review of an entity that is still open (not committed, rejected, canceled or stale). */
export const ActiveReviewShape = {
  activeReview: z
    .strictObject({ reviewID: z.string(), reviewStatus: z.string(), description: z.string() })
    .optional()
    .describe('The newest open review of this entity (any status but committed, rejected, canceled and stale); absent when there is none. Reads only: write responses leave it out.'),
} as const;

/** What every response of a kind that holdouts can target ends with: server fields, holdouts, link. */
export const ComputedResponseShape = { ...ServerFieldsShape, ...HoldoutIDsShape, ...PermalinkShape } as const;

export const PaginationSchema = z
  .strictObject({
    itemsPerPage: z.number().int().describe('Page size used.'),
    pageNumber: z.number().int().describe('1-based page number.'),
    totalItems: z.number().int().describe('Items across all pages.'),
    nextPage: z.string().nullable().describe('Relative path of the next page, or null.'),
    previousPage: z.string().nullable().describe('Relative path of the previous page, or null.'),
    all: z.string().describe('The bare list path.'),
  })
  .meta({ id: 'Pagination' });

export const ApiErrorSchema = z
  .strictObject({
    status: z.number().int().describe('HTTP status.'),
    message: z.string().describe('What went wrong.'),
    errors: z
      .array(z.strictObject({ property: z.string(), errorMessage: z.string() }))
      .optional()
      .describe('Every violated constraint, with its property path.'),
  })
  .meta({ id: 'ApiError' });
