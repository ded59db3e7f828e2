import { InputError } from './errors.js';

/**
 * Configuration read from the environment. main.ts hands the environment in; nothing else looks at
 * process.env, so every setting is visible here.
 */
export interface EnvConfig {
  /** FLAGOPS_BOOTSTRAP_KEY: the admin key an empty console database is created with. */
  bootstrapKey: string | undefined;
  /** FLAGOPS_DB_URL: the console database (a SQLite path or a postgres:// URL) when `--db` is not given. */
  dbUrl: string | undefined;
}

export function readEnvConfig(env: Readonly<Record<string, string | undefined>>): EnvConfig {
  const value = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  return { bootstrapKey: value('FLAGOPS_BOOTSTRAP_KEY'), dbUrl: value('FLAGOPS_DB_URL') };
}

/** Shortest FLAGOPS_BOOTSTRAP_KEY accepted: an admin key must not be guessable. */
export const BOOTSTRAP_KEY_MIN_LENGTH = 20;

/** Refuses a bootstrap key shorter than BOOTSTRAP_KEY_MIN_LENGTH, naming the variable. */
export function assertBootstrapKey(key: string | undefined): void {
  if (key === undefined || key.length >= BOOTSTRAP_KEY_MIN_LENGTH) return;
  throw new InputError('Invalid environment.', [{ property: 'FLAGOPS_BOOTSTRAP_KEY', errorMessage: `must be at least ${BOOTSTRAP_KEY_MIN_LENGTH} characters long (it becomes an admin key)` }]);
}

/** The API key for talking to a console: the variable named by `apiKeyEnv` (default FLAGOPS_API_KEY). */
export function apiKeyFromEnv(env: Readonly<Record<string, string | undefined>>, name = 'FLAGOPS_API_KEY'): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}
