import { z } from 'zod';

/** Longest and shortest lease an apply may ask for: it renews a third of the way through. */
export const APPLY_LOCK_MIN_TTL_SECONDS = 5;
export const APPLY_LOCK_MAX_TTL_SECONDS = 3600;

/** A lock's name: what `flagops apply` locks, its repository and branch (`<remote or path>@<branch>`). */
export const ApplyLockNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(500, 'must be at most 500 characters long')
  .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters');

export const ApplyLockRequestSchema = z
  .strictObject({
    holder: z
      .string()
      .regex(/^[A-Za-z0-9_-]{16,100}$/, 'must be 16 to 100 letters, digits, - or _')
      .describe('A random token the holder keeps: renewing and releasing need it. Never shown to others.'),
    description: z.string().max(300, 'must be at most 300 characters long').regex(/^[^\p{Cc}]*$/u, 'must not contain control characters').default('').describe('Where the holder runs (host, process, commit), shown to whoever finds the lock taken.'),
    ttlSeconds: z
      .number()
      .int('must be a whole number')
      .min(APPLY_LOCK_MIN_TTL_SECONDS, `must be at least ${APPLY_LOCK_MIN_TTL_SECONDS}`)
      .max(APPLY_LOCK_MAX_TTL_SECONDS, `must be at most ${APPLY_LOCK_MAX_TTL_SECONDS}`)
      .default(30)
      .describe('How long the lock lasts unless renewed: a holder that dies stops renewing and the lock expires.'),
  })
  .meta({ id: 'ApplyLockRequest', description: 'Takes or renews an apply lock.' });
export type ApplyLockRequest = z.infer<typeof ApplyLockRequestSchema>;

export const ApplyLockReleaseSchema = z
  .strictObject({ holder: z.string().regex(/^[A-Za-z0-9_-]{16,100}$/, 'must be 16 to 100 letters, digits, - or _') })
  .meta({ id: 'ApplyLockRelease', description: 'Releases an apply lock the caller holds.' });

export const ApplyLockSchema = z
  .strictObject({
    name: z.string().describe('What is locked: a repository and branch.'),
    heldBy: z.string().describe('The user whose key took the lock.'),
    description: z.string().describe('Where the holder runs, as it said.'),
    expiresTime: z.number().int().describe('When the lock expires unless renewed (epoch ms).'),
  })
  .meta({ id: 'ApplyLock', description: 'A lock `flagops apply` holds on a repository and branch while it applies.' });
export type ApplyLock = z.infer<typeof ApplyLockSchema>;
