/**
 * One pull request's worth of files for the policy checks: a repository whose bridge limits a rollout
 * step to 25 points and whose team rule wants a `team-*` tag and a description on every gate, and the
 * gate's file before and after the change. validate --base, plan and the bridge are tested on the same
 * texts, so the three can't drift apart.
 */
export const POLICY_REPO_CONFIG = `apply: { approverKeyEnv: FLAGOPS_APPROVER_KEY }
bridge:
  maxPassPercentageStep: 25
policies:
  schemas:
    gates:
      required: [tags, description]
      properties:
        description: { type: string, minLength: 1 }
        tags:
          description: every gate carries a team-* tag
          contains: { type: string, pattern: "^team-" }
`;

/** The gate with its ramp rule at `percentage`, tagged `tag`. The passPercentage is on line 9. */
export function rampGate(percentage: number, tag = 'team-checkout'): string {
  return `id: ramp_gate
name: Ramp gate
description: Ramps the new checkout.
tags: [${tag}, flagops-managed]
isEnabled: true
rules:
  - name: ramp
    conditions: [{ type: public }]
    passPercentage: ${percentage}
`;
}

/** Line and column of the ramp rule's passPercentage value in rampGate(). */
export const RAMP_PERCENTAGE_AT = '9:21';
/** Line and column of the tags value in rampGate(). */
export const RAMP_TAGS_AT = '4:7';

/** The repository at the base of the pull request: the ramp at 10%. */
export const POLICY_BASE_FILES: Record<string, string> = { 'flagops.yaml': POLICY_REPO_CONFIG, 'gates/ramp_gate.yaml': rampGate(10) };
