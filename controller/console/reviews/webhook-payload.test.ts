import { describe, expect, it } from 'vitest';
import { UNDECIDED_REVIEW, type ReviewRecord } from '../../store/ports.js';
import { buildWebhookPayload } from './webhook-payload.js';

const base: ReviewRecord = {
  id: 'rev_1',
  kind: 'gate',
  entityId: 'checkout',
  status: 'approved',
  action: 'update',
  description: '',
  change: {},
  submitter: 'sub@example.com',
  createdTime: 1,
  lastModifiedTime: 1,
  baseVersion: 1,
  after: {},
  oldConfig: { id: 'checkout', targetApps: [], rules: [] },
  newConfig: { id: 'checkout', targetApps: ['web'], rules: [{ name: 'r' }] },
  changeTypes: ['rules', 'update_target_apps'],
  ...UNDECIDED_REVIEW,
};

const experiment = (overrides: Partial<ReviewRecord>): ReviewRecord => ({
  ...base,
  kind: 'experiment',
  entityId: 'exp',
  oldConfig: { id: 'exp', status: 'active', allocation: 50, targetingGateID: null, inlineTargetingRules: [], groups: [{ id: 'g1', name: 'control', size: 50, parameterValues: { a: 1 } }, { id: 'g2', name: 'test', size: 50 }] },
  newConfig: { id: 'exp', status: 'active', allocation: 80, targetingGateID: 'gate', inlineTargetingRules: [], groups: [{ id: 'g1', name: 'control', size: 50, parameterValues: { a: 1 } }, { id: 'g2', name: 'test', size: 50 }] },
  ...overrides,
});

describe('buildWebhookPayload', () => {
  it('gates, dynamic configs, segments: config_name, old/new config, target apps when they changed', () => {
    expect(buildWebhookPayload(base, 'rules', 'com@example.com')).toEqual({
      review_id: 'rev_1',
      submitter: 'sub@example.com',
      committer: 'com@example.com',
      config_type: 'gate',
      config_name: 'checkout',
      type: 'rules',
      old_config: base.oldConfig,
      new_config: base.newConfig,
      old_target_apps: [],
      new_target_apps: ['web'],
    });
    const created = buildWebhookPayload({ ...base, kind: 'segment', oldConfig: null, changeTypes: ['rules'] }, 'rules', 'c');
    expect(created).toMatchObject({ config_type: 'segment', old_config: null, new_config: base.newConfig });
    expect(created).not.toHaveProperty('old_target_apps');
    expect(created).not.toHaveProperty('experiment_name');
  });

  it('experiments: experiment_name, old/new experiment for changes of a running one, and the per-type fields', () => {
    const allocation = buildWebhookPayload(experiment({ changeTypes: ['update_allocation'] }), 'update_allocation', 'c');
    expect(allocation).toMatchObject({ config_type: 'experiment', experiment_name: 'exp', type: 'update_allocation', old_allocation: 50, new_allocation: 80 });
    expect(allocation).not.toHaveProperty('config_name');
    expect(allocation['old_experiment']).toEqual(experiment({}).oldConfig);

    const settings = buildWebhookPayload(experiment({ changeTypes: ['update_experiment_settings'] }), 'update_experiment_settings', 'c');
    expect(settings['new_settings']).toEqual({
      groups: [
        { name: 'control', parameterValuesJSON: '{"a":1}', size: 50 },
        { name: 'test', parameterValuesJSON: '{}', size: 50 },
      ],
      allocation: 80,
      targetingGateID: 'gate',
      inlineTargetingRulesJSON: '[]',
    });
    expect(settings['new_experiment']).toEqual(experiment({}).newConfig);

    expect(buildWebhookPayload(experiment({ changeTypes: ['start_experiment'] }), 'start_experiment', 'c')).toMatchObject({ type: 'start_experiment', new_allocation: 80 });
    const shipped = experiment({ changeTypes: ['ship_experiment'], newConfig: { ...experiment({}).newConfig, status: 'decision_made', launchedGroupID: 'g2' } });
    expect(buildWebhookPayload(shipped, 'ship_experiment', 'c')).toMatchObject({ type: 'ship_experiment', group: 'test' });
    const abandoned = buildWebhookPayload(experiment({ changeTypes: ['abandon_experiment'] }), 'abandon_experiment', 'c');
    expect(Object.keys(abandoned).sort()).toEqual(['committer', 'config_type', 'experiment_name', 'review_id', 'submitter', 'type']);
    expect(buildWebhookPayload(experiment({ changeTypes: ['start_experiment'] }), 'start_experiment', 'c')).not.toHaveProperty('new_experiment');
  });
});
