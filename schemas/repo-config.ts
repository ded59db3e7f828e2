/**
 * `flagops.yaml`: the settings of a config repository. The reconciler reads the console section;
 * prune, drift, apply and bridge settings are declared here so every command validates them the
 * same way, even where a command that uses them comes later.
 */
import { z } from 'zod';

export const DRIFT_POLICIES = ['detect', 'heal', 'adopt'] as const;

/** `<folder>/<id>`, e.g. `gates/new_checkout`: how policies name one entity of the repository. */
const EntityRefSchema = z
  .string()
  .regex(/^[a-z_]+\/[A-Za-z0-9_. -]+$/, 'must be <folder>/<id>, e.g. gates/new_checkout')
  .describe('An entity of the repository as <folder>/<id>, e.g. gates/new_checkout.');

const EnvVarNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

export const RepoConsoleSchema = z
  .strictObject({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('http://127.0.0.1:8080').describe('Base URL of the console, e.g. http://127.0.0.1:8080; --console overrides it.'),
    apiKeyEnv: EnvVarNameSchema.default('FLAGOPS_API_KEY').describe('Name of the environment variable that holds the console API key (the key never lives in a file).'),
  })
  .describe('Where the console is and how to authenticate.');

export const PruneSettingsSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('Plan deletes of live entities that no file declares (opt-in; --prune turns it on for one run).'),
    managedTag: z.string().min(1, 'must not be empty').default('flagops-managed').describe('Only live entities carrying this tag are ever deleted.'),
    maxDeletes: z.number().int().min(0, 'must be 0 or more').default(10).describe('apply refuses a plan with more deletes than this (mass-delete guard).'),
  })
  .describe('Deleting live entities that are absent from the repository.');

export const DriftSettingsSchema = z
  .strictObject({
    default: z.enum(DRIFT_POLICIES).default('detect').describe('detect (report only), heal (revert through a review) or adopt (rewrite the YAML).'),
    entities: z.record(EntityRefSchema, z.enum(DRIFT_POLICIES)).default({}).describe('Policy per entity, keyed <folder>/<id>.'),
  })
  .describe('What to do about out-of-band console edits of managed entities.');

export const FreezeWindowSchema = z
  .strictObject({
    start: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2025-12-20T00:00:00Z' }).describe('Start of the freeze (ISO 8601).'),
    end: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-01-02T00:00:00Z' }).describe('End of the freeze (ISO 8601).'),
    reason: z.string().optional().describe('Shown when a change is refused.'),
    entities: z.array(EntityRefSchema).optional().describe('Entities the freeze applies to; all when left out.'),
  })
  .describe('A period in which the bridge refuses changes.');

export const BridgeSettingsSchema = z
  .strictObject({
    protectedEntities: z.array(EntityRefSchema).default([]).describe('Entities the bridge refuses to change unless the change matches git exactly.'),
    maxPassPercentageStep: z.number().min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100').optional().describe('Largest allowed change of a rule pass percentage in one review.'),
    freezeWindows: z.array(FreezeWindowSchema).default([]).describe('Periods in which changes are refused.'),
  })
  .describe('Policies of the git-verifying pre-commit bridge.');

export const ApplySettingsSchema = z
  .strictObject({
    approverKeyEnv: EnvVarNameSchema.optional().describe('Environment variable holding a second key that approves the reviews apply submits.'),
  })
  .describe('Settings of flagops apply.');

export const RepoConfigSchema = z
  .strictObject({
    console: RepoConsoleSchema.default({ url: 'http://127.0.0.1:8080', apiKeyEnv: 'FLAGOPS_API_KEY' }),
    environments: z.array(z.string().min(1, 'must not be empty')).optional().describe('Environment names rules may name; when given, validate checks every rule against it.'),
    prune: PruneSettingsSchema.default({ enabled: false, managedTag: 'flagops-managed', maxDeletes: 10 }),
    drift: DriftSettingsSchema.default({ default: 'detect', entities: {} }),
    apply: ApplySettingsSchema.default({}),
    bridge: BridgeSettingsSchema.default({ protectedEntities: [], freezeWindows: [] }),
  })
  .meta({ id: 'RepoConfig', title: 'flagops.yaml', description: 'Settings of a flagops config repository.' });

export type RepoConfig = z.infer<typeof RepoConfigSchema>;

/** File name of the settings at the repository root. */
export const REPO_CONFIG_FILE = 'flagops.yaml';
