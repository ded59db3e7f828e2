import type { BridgePolicies } from '../core/bridge-policies.js';
import { parseRepoConfigText } from '../source/load-repo.js';

/**
 * The policies the bridge enforces, from flagops.yaml's text: its `bridge` settings and the team
 * rules of `policies.schemas`, read as `validate` reads them (an InputError placing each problem at
 * its file:line:col when the file is invalid).
 */
export function parseBridgePolicies(text: string): BridgePolicies {
  const config = parseRepoConfigText(text);
  return { ...config.bridge, schemas: config.policies.schemas };
}
