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

const HhMmSchema = z.string().regex(/^([01]?\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (UTC)');
const IsoInstantSchema = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2025-12-20T00:00:00Z' });

export const FreezeWindowSchema = z
  .strictObject({
    start: IsoInstantSchema.optional().describe('Start of an absolute freeze (ISO 8601).'),
    end: IsoInstantSchema.optional().describe('End of an absolute freeze (ISO 8601).'),
    days: z.array(z.enum(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'])).optional().describe('Weekly freeze: days (UTC).'),
    from: HhMmSchema.optional().describe('Weekly freeze: start time HH:MM (UTC); 00:00 when left out.'),
    to: HhMmSchema.optional().describe('Weekly freeze: end time HH:MM (UTC); 24:00 when left out.'),
    reason: z.string().optional().describe('Shown when a change is refused.'),
  })
  .superRefine((w, ctx) => {
    const absolute = w.start !== undefined || w.end !== undefined;
    const weekly = w.days !== undefined || w.from !== undefined || w.to !== undefined;
    // A window of neither kind would never be active, one of both would be read as absolute alone: a team would believe itself frozen.
    if (!absolute && !weekly) ctx.addIssue({ code: 'custom', message: 'sets no period: give start and/or end (an absolute freeze), or days, from and/or to (a weekly one)' });
    if (absolute && weekly) ctx.addIssue({ code: 'custom', message: 'mixes an absolute freeze (start, end) with a weekly one (days, from, to): make them two windows' });
    if (w.days !== undefined && w.days.length === 0) ctx.addIssue({ code: 'custom', path: ['days'], message: 'is empty: the window would never be active; leave days out for every day' });
  })
  .describe('A period in which the bridge refuses changes: absolute (start/end) or weekly (days, from, to; every day when days is left out; past midnight when to is not after from).');

export const BridgeSettingsSchema = z
  .strictObject({
    protectedEntities: z.array(z.string().min(1, 'must not be empty')).default([]).describe('Existing entities no webhook-validated change may modify or delete (creating them is allowed): <folder>/<id> or a bare id.'),
    maxPassPercentageStep: z.number().min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100').optional().describe('Largest increase of any rule passPercentage in one change (percentage points).'),
    freezeWindows: z.array(FreezeWindowSchema).default([]).describe('Periods in which changes are refused.'),
  })
  .describe('Policies of the git-verifying pre-commit bridge.');

/** Folders whose entities team rules may constrain: every kind of the config repository. */
export const POLICY_SCHEMA_FOLDERS = ['segments', 'gates', 'dynamic_configs', 'layers', 'assignment_sources', 'experiments', 'holdouts', 'prompts'] as const;

const TeamRuleSchema = z
  .union([z.boolean(), z.record(z.string(), z.unknown())], { error: 'must be a JSON Schema (a mapping, or true/false)' })
  .describe('A JSON Schema 2020-12 every entity of the kind must satisfy, as its file declares it.');

export const PolicySettingsSchema = z
  .strictObject({
    schemas: z
      .strictObject(Object.fromEntries(POLICY_SCHEMA_FOLDERS.map((folder) => [folder, TeamRuleSchema.optional()])) as Record<(typeof POLICY_SCHEMA_FOLDERS)[number], z.ZodOptional<typeof TeamRuleSchema>>)
      .default({})
      .describe('Team rules per kind folder (gates, experiments, ...): JSON Schema 2020-12 checked by validate, plan and the bridge.'),
  })
  .describe("The team's own rules on entities, beside the bridge's policies.");

export type TeamRuleSchemas = z.infer<typeof PolicySettingsSchema>['schemas'];

export const ApplySettingsSchema = z
  .strictObject({
    approverKeyEnv: EnvVarNameSchema.optional().describe('Environment variable holding a second key that approves the reviews apply submits.'),
  })
  .describe('Settings of flagops apply.');

/** `<folder>` or `<folder>/<id>`: a kind, or one entity of it. */
const OwnerKeySchema = z
  .string()
  .regex(/^[a-z_]+(\/[A-Za-z0-9_. -]+)?$/, 'must be <folder> or <folder>/<id>, e.g. gates or gates/kill_switch')
  .describe('A kind (its folder, e.g. gates) or one entity as <folder>/<id>.');

/** `isEnabled`, `rules[*].passPercentage`: a field of the entity, `[*]` standing for every item of a list. */
const OwnedPathSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*(\[\*\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[\*\])?)*$/, 'must be a field path such as isEnabled or rules[*].passPercentage')
  .describe('A field path: names joined by dots, [*] after a list for each of its items.');

export const OwnershipSettingsSchema = z
  .strictObject({
    console: z
      .record(OwnerKeySchema, z.array(OwnedPathSchema))
      .default({})
      .describe('Fields the console owns once an entity exists, per kind (<folder>) and per entity (<folder>/<id>, added to its kind\'s list): plan, apply and drift leave them alone, the bridge approves console changes limited to them; a create takes the file\'s value.'),
  })
  .describe('Which fields of existing entities the console owns rather than git.');

/** Marks an entity's console-owned fields in its tags (one tag per path), so the console and its web pages can say which they are. */
export const CONSOLE_OWNS_TAG_PREFIX = 'flagops-console-owns:';

/** The owned paths a list of tags names. */
export const ownedPathsInTags = (tags: readonly unknown[]): string[] =>
  tags.flatMap((tag) => (typeof tag === 'string' && tag.startsWith(CONSOLE_OWNS_TAG_PREFIX) ? [tag.slice(CONSOLE_OWNS_TAG_PREFIX.length)] : []));

/** Defaults of the reader's limits: generous for hand-written entity files, small enough to keep a run bounded. */
export const DEFAULT_READ_LIMITS = { maxFileBytes: 1024 * 1024, maxRepoBytes: 64 * 1024 * 1024 } as const;

export const ReadLimitsSchema = z
  .strictObject({
    maxFileBytes: z.number().int('must be a whole number of bytes').min(1, 'must be at least 1').default(DEFAULT_READ_LIMITS.maxFileBytes).describe('Largest file read, in bytes (default 1 MiB); a larger file is an error and is never read. --max-file-size overrides it.'),
    maxRepoBytes: z.number().int('must be a whole number of bytes').min(1, 'must be at least 1').default(DEFAULT_READ_LIMITS.maxRepoBytes).describe('Most bytes read from the repository in one run (default 64 MiB); files past it are an error and are not read. --max-repo-size overrides it.'),
  })
  .describe('How much of the repository a command reads at most.');

export type ReadLimits = z.infer<typeof ReadLimitsSchema>;

export const RepoConfigSchema = z
  .strictObject({
    console: RepoConsoleSchema.default({ url: 'http://127.0.0.1:8080', apiKeyEnv: 'FLAGOPS_API_KEY' }),
    environments: z.array(z.string().min(1, 'must not be empty')).optional().describe('Environment names rules and overrides may name; when given, validate checks each one against it.'),
    prune: PruneSettingsSchema.default({ enabled: false, managedTag: 'flagops-managed', maxDeletes: 10 }),
    drift: DriftSettingsSchema.default({ default: 'detect', entities: {} }),
    apply: ApplySettingsSchema.default({}),
    bridge: BridgeSettingsSchema.default({ protectedEntities: [], freezeWindows: [] }),
    policies: PolicySettingsSchema.default({ schemas: {} }),
    limits: ReadLimitsSchema.default({ ...DEFAULT_READ_LIMITS }),
    ownership: OwnershipSettingsSchema.default({ console: {} }),
  })
  .meta({ id: 'RepoConfig', title: 'flagops.yaml', description: 'Settings of a flagops config repository.' });

export type RepoConfig = z.infer<typeof RepoConfigSchema>;

/** File name of the settings at the repository root. */
export const REPO_CONFIG_FILE = 'flagops.yaml';
