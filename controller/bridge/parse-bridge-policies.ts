import { parse } from 'yaml';
import type { BridgePolicies } from '../core/bridge-policies.js';
import { InputError } from '../errors.js';
import { checkRepoConfig } from '../source/load-repo.js';

/**
 * The policies the bridge enforces, from flagops.yaml's text: its `bridge` settings and the team
 * rules of `policies.schemas`; an InputError naming each problem when the file is invalid.
 */
export function parseBridgePolicies(text: string): BridgePolicies {
  const parsed = checkRepoConfig(parse(text));
  if (!parsed.ok) throw new InputError('flagops.yaml is invalid.', parsed.errors);
  return { ...parsed.value.bridge, schemas: parsed.value.policies.schemas };
}
