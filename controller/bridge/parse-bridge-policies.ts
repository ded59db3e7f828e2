import { parse } from 'yaml';
import type { RepoConfig } from '../../schemas/repo-config.js';
import type { BridgePolicies } from '../core/bridge-policies.js';
import { InputError } from '../errors.js';
import { checkRepoConfig } from '../source/load-repo.js';

/**
 * The policies the bridge enforces, from flagops.yaml's text: its `bridge` settings and the team
 * rules of `policies.schemas`; an InputError naming each problem when the file is invalid.
 */
export function parseBridgePolicies(text: string): BridgePolicies {
  const config = parseRepoConfigText(text);
  return { ...config.bridge, schemas: config.policies.schemas };
}

/** flagops.yaml's settings from its text, checked as every command checks them; an InputError naming each problem when invalid. */
export function parseRepoConfigText(text: string): RepoConfig {
  const parsed = checkRepoConfig(parse(text));
  if (!parsed.ok) throw new InputError('flagops.yaml is invalid.', parsed.errors);
  return parsed.value;
}
