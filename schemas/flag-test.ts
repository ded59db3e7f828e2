/**
 * Flag tests: `tests/*.yaml` of a config repository, each a list of cases that say what a flag
 * answers for a user (or what share of a sample of units it passes). `flagops test`, `validate` and
 * the markdown plan run them with the evaluation engine.
 */
import { z } from 'zod';
import { EvalUserSchema } from './evaluation.js';

/** Folder of a config repository that holds the flag test files. */
export const FLAG_TESTS_FOLDER = 'tests';

/** The kinds a case may test: those the evaluation engine answers for. */
export const FLAG_TEST_FOLDERS = ['gates', 'dynamic_configs', 'experiments', 'layers'] as const;

/** The most units one sampled case evaluates: a sample stays a fraction of a second. */
export const MAX_SAMPLE_UNITS = 100_000;

const Rate = (what: string) => z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').describe(what);

export const FlagTestSampleSchema = z
  .strictObject({
    units: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_SAMPLE_UNITS, `must be at most ${MAX_SAMPLE_UNITS}`).describe('How many units to evaluate; their ids are generated (sample-1, sample-2, …), so every run gets the same answer.'),
    idType: z
      .string()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters long')
      .optional()
      .describe('The id type the generated ids fill: userID (the default) or a custom id type such as companyID.'),
  })
  .describe('Evaluate many generated units instead of one user; `user` then holds the fields every unit shares.');

export const FlagTestSampleExpectSchema = z
  .strictObject({
    passRate: Rate('The share of units expected to get `value` (0.25: a quarter).'),
    tolerance: Rate('How far the observed share may be from passRate (default 0.01).').optional(),
    value: z
      .unknown()
      .optional()
      .describe("The answer counted: a gate's boolean (default true); for a dynamic config, layer or experiment, an object as a single user's expect writes it."),
  })
  .describe('For a sampled case: the share of units whose answer is `value`.');

export const FlagTestCaseSchema = z
  .strictObject({
    name: z.string().min(1, 'must not be empty').max(300, 'must be at most 300 characters long').describe('What the case checks, in words ("staff get the new checkout").'),
    entity: z
      .string()
      .regex(new RegExp(`^(${FLAG_TEST_FOLDERS.join('|')})/[^/]+$`), `must be KIND/ID with KIND one of ${FLAG_TEST_FOLDERS.join(', ')}, e.g. gates/new_checkout`)
      .max(300, 'must be at most 300 characters long')
      .describe('The flag to evaluate, as <folder>/<id>: gates/ID, dynamic_configs/ID, experiments/ID or layers/ID.'),
    user: EvalUserSchema.optional().describe("The user, in the Statsig SDK's shape (userID, email, country, custom, customIDs, …)."),
    sample: FlagTestSampleSchema.optional(),
    environment: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters long').optional().describe('The environment to evaluate in; absent: none (rules limited to environments do not apply).'),
    expect: z
      .union([z.boolean(), FlagTestSampleExpectSchema, z.record(z.string(), z.unknown())])
      .describe(
        'A gate: true or false. A dynamic config or layer: an object the value contains. An experiment: { group: NAME } or an object its parameters contain. A sampled case: { passRate, tolerance, value }.',
      ),
  })
  .describe('One flag test case: a flag, a user or a sample, and what the flag must answer.');

export const FlagTestFileSchema = z.array(FlagTestCaseSchema).max(1000, 'must hold at most 1000 cases').describe('A flag test file: a list of cases.');

export type FlagTestCase = z.infer<typeof FlagTestCaseSchema>;
export type FlagTestSampleExpect = z.infer<typeof FlagTestSampleExpectSchema>;
