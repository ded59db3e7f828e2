/**
 * One or more realistic entities of every kind, as API create bodies, for round-trip and plan tests.
 * Listed in dependency order, so creating them in order never names a missing entity.
 */
export interface SampleEntity {
  /** Config-repo folder. */
  folder: string;
  body: Record<string, unknown>;
}

export const SAMPLE_ENTITIES: readonly SampleEntity[] = [
  {
    folder: 'segments',
    body: {
      id: 'beta_testers',
      name: 'Beta testers',
      type: 'rule_based',
      rules: [{ name: 'staff', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_contains_any', targetValue: ['@example.com'] }] }],
      tags: ['flagops-managed'],
    },
  },
  { folder: 'segments', body: { id: 'vip_users', name: 'VIP users', type: 'id_list', ids: ['u1', 'u2', 'u3'] } },
  {
    folder: 'gates',
    body: {
      id: 'new_checkout',
      name: 'New checkout',
      description: 'The redesigned checkout flow.',
      type: 'TEMPORARY',
      tags: ['checkout', 'flagops-managed'],
      rules: [
        { name: 'beta', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['beta_testers'] }] },
        { name: 'rollout', passPercentage: 25, conditions: [{ type: 'public' }], environments: ['production'] },
      ],
      owner: { ownerName: 'Checkout team', ownerEmail: 'checkout@example.com' },
      reviewSettings: { requiredReview: true, allowedReviewers: [{ email: 'lead@example.com' }] },
    },
  },
  { folder: 'gates', body: { id: 'kill_switch', name: 'Kill switch', isEnabled: false } },
  {
    folder: 'dynamic_configs',
    body: {
      id: 'pricing',
      name: 'Pricing',
      schemaJson5: "{ type: 'object', properties: { price: { type: 'number' } }, required: ['price'] }",
      defaultValueJson5: '{\n  price: 10, // euros\n}\n',
      rules: [
        {
          name: 'beta',
          passPercentage: 50,
          conditions: [{ type: 'passes_gate', targetValue: ['new_checkout'] }],
          returnValueJson5: '{ price: 8 /* discount */ }',
          variants: [
            { name: 'low', passPercentage: 50, returnValue: { price: 7 } },
            { name: 'high', passPercentage: 50, returnValue: { price: 9 } },
          ],
        },
      ],
    },
  },
  { folder: 'dynamic_configs', body: { id: 'banner', name: 'Banner', defaultValue: { text: 'Hello', colors: ['red', 'blue'], nested: { on: true, nothing: null } } } },
  {
    folder: 'layers',
    body: { id: 'checkout_layer', name: 'Checkout layer', parameters: [{ name: 'button_color', type: 'string', defaultValue: 'blue' }, { name: 'discount', type: 'number', defaultValue: 0 }] },
  },
  {
    folder: 'assignment_sources',
    body: {
      name: 'warehouse_assignments',
      sql: 'select * from assignments',
      timestampColumn: 'ts',
      experimentIDColumn: 'experiment_id',
      groupIDColumn: 'group_id',
      idTypeMapping: [{ statsigUnitID: 'userID', column: 'user_id' }],
    },
  },
  {
    folder: 'experiments',
    body: {
      id: 'button_color_test',
      name: 'Button color test',
      hypothesis: 'A green button converts better.',
      layerID: 'checkout_layer',
      targetingGateID: 'new_checkout',
      allocation: 40,
      groups: [
        { name: 'Control', size: 50, parameterValues: { button_color: 'blue' } },
        { name: 'Green', size: 50, parameterValues: { button_color: 'green', discount: 5 } },
      ],
      primaryMetrics: [{ name: 'purchase', type: 'event_count' }],
    },
  },
  { folder: 'experiments', body: { id: 'plain_experiment', name: 'Plain experiment' } },
  { folder: 'holdouts', body: { id: 'global_holdout', name: 'Global holdout', passPercentage: 5, gateIDs: ['new_checkout'], experimentIDs: ['button_color_test'], layerIDs: ['checkout_layer'] } },
  { folder: 'prompts', body: { name: 'support_bot', displayName: 'Support bot', description: 'Answers support questions.', tags: ['ai'] } },
];

/** API list path of a folder. */
export function apiPathOf(folder: string): string {
  return folder === 'assignment_sources' ? '/console/v1/experiments/assignment_sources' : `/console/v1/${folder}`;
}
