import { delimiter, resolve } from 'node:path';

/**
 * The environment of a fresh shell a user opens: no npm_* variables from the surrounding `npm test`,
 * no node_modules/.bin of this checkout on PATH (so `npx flagops` finds only what the shell itself
 * would), npm offline (tests never reach the network) and quiet.
 */
export function freshShellEnv(root: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_')) env[name] = value;
  env['PATH'] = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((entry) => !resolve(entry).startsWith(resolve(root, 'node_modules')))
    .join(delimiter);
  env['npm_config_offline'] = 'true';
  env['npm_config_audit'] = 'false';
  env['npm_config_fund'] = 'false';
  env['npm_config_update_notifier'] = 'false';
  return env;
}
