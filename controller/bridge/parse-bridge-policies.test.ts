import { describe, expect, it } from 'vitest';
import { POLICY_REPO_CONFIG } from '../test-support/policy-fixtures.js';
import { parseBridgePolicies } from './parse-bridge-policies.js';

describe('parseBridgePolicies', () => {
  it("reads the bridge's settings and the team rules of flagops.yaml", () => {
    const policies = parseBridgePolicies(POLICY_REPO_CONFIG);
    expect(policies).toMatchObject({ maxPassPercentageStep: 25, protectedEntities: [], freezeWindows: [] });
    expect(policies.schemas?.gates).toMatchObject({ required: ['tags', 'description'] });
    expect(parseBridgePolicies('')).toEqual({ protectedEntities: [], freezeWindows: [], schemas: {} });
  });

  it('refuses a team rule that is not JSON Schema, naming it at its line: with its policies unknown, the bridge approves nothing', () => {
    expect(() => parseBridgePolicies(POLICY_REPO_CONFIG.replace('required: [tags, description]', 'required: tags'))).toThrow(
      expect.objectContaining({ message: 'flagops.yaml is invalid.', errors: [{ property: 'flagops.yaml:7:17 policies.schemas.gates.required', errorMessage: 'is not valid JSON Schema 2020-12: must be array' }] }),
    );
    expect(() => parseBridgePolicies('policies: { schemas: { gates: { requried: [tags] } } }')).toThrow(expect.objectContaining({ errors: [{ property: expect.stringMatching(/^flagops\.yaml:1:\d+ policies\.schemas\.gates$/), errorMessage: 'is not a usable JSON Schema 2020-12: strict mode: unknown keyword: "requried"' }] }));
  });
});
