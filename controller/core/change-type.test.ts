import { describe, expect, it } from 'vitest';
import { changeTypesOf, type ChangeFacts } from './change-type.js';

const gate = { id: 'g', name: 'g', description: '', isEnabled: true, rules: [{ id: 'r', name: 'all', passPercentage: 10, conditions: [] }], tags: [], targetApps: [], type: 'PERMANENT', idType: 'userID', version: 3, lastModifiedTime: 1 };
const update = (configType: string, before: Record<string, unknown>, patch: Record<string, unknown>): ChangeFacts => ({ configType, action: 'update', before, after: { ...before, ...patch } });

describe('changeTypesOf: gates, dynamic configs, segments', () => {
  it.each([
    ['rules', { rules: [] }],
    ['isEnabled', { isEnabled: false }],
    ['idType', { idType: 'stableID' }],
  ])('a change of %s is a rules change', (_field, patch) => {
    expect(changeTypesOf(update('gate', gate, patch))).toEqual(['rules']);
  });

  it('a change of target apps alone is update_target_apps', () => {
    expect(changeTypesOf(update('dynamic_config', gate, { targetApps: ['web'] }))).toEqual(['update_target_apps']);
  });

  it('rules and target apps together send rules first', () => {
    expect(changeTypesOf(update('segment', gate, { targetApps: ['web'], rules: [] }))).toEqual(['rules', 'update_target_apps']);
  });

  it.each([
    ['description', { description: 'new words' }],
    ['tags', { tags: ['x'] }],
    ['owner and team', { owner: { ownerName: 'o' }, team: 't' }],
    ['gate type', { type: 'TEMPORARY' }],
    ['review settings', { reviewSettings: { requiredReview: true, allowedReviewers: [] } }],
    ['server stamps', { version: 4, lastModifiedTime: 2 }],
  ])('a change of %s alone does not trigger the webhook', (_what, patch) => {
    expect(changeTypesOf(update('gate', gate, patch))).toEqual([]);
  });

  it("a segment's type is not bookkeeping: changing it is a rules change", () => {
    expect(changeTypesOf(update('segment', { ...gate, type: 'rule_based' }, { type: 'id_list', rules: [] }))).toEqual(['rules']);
    expect(changeTypesOf(update('segment', { ...gate, type: 'rule_based' }, { type: 'id_list' }))).toEqual(['rules']);
  });

  it('a dynamic config default value is a rules change; a comment-only JSON5 edit is not', () => {
    const config = { ...gate, defaultValue: { a: 1 }, defaultValueJson5: '{a: 1}' };
    expect(changeTypesOf(update('dynamic_config', config, { defaultValue: { a: 2 }, defaultValueJson5: '{a: 2}' }))).toEqual(['rules']);
    expect(changeTypesOf(update('dynamic_config', config, { defaultValueJson5: '{a: 1 /* why */}' }))).toEqual([]);
  });

  it('a field that appears or disappears counts as a change; undefined equals null', () => {
    expect(changeTypesOf(update('gate', gate, { newKnob: 1 }))).toEqual(['rules']);
    expect(changeTypesOf(update('gate', { ...gate, team: null }, { team: undefined }))).toEqual([]);
  });

  it('create and delete are rules changes; nothing changed is no change type', () => {
    expect(changeTypesOf({ configType: 'gate', action: 'create', before: undefined, after: gate })).toEqual(['rules']);
    expect(changeTypesOf({ configType: 'segment', action: 'delete', before: gate, after: undefined })).toEqual(['rules']);
    expect(changeTypesOf(update('gate', gate, {}))).toEqual([]);
  });
});

describe('changeTypesOf: experiments', () => {
  const running = { id: 'e', status: 'active', allocation: 50, groups: [{ name: 'a', size: 50 }, { name: 'b', size: 50 }], targetApps: [], hypothesis: 'h', tags: [] };

  it('lifecycle actions map to their own types', () => {
    expect(changeTypesOf({ configType: 'experiment', action: 'start', before: { ...running, status: 'setup' }, after: running })).toEqual(['start_experiment']);
    expect(changeTypesOf({ configType: 'experiment', action: 'ship', before: running, after: { ...running, status: 'decision_made' } })).toEqual(['ship_experiment']);
    expect(changeTypesOf({ configType: 'experiment', action: 'abandon', before: running, after: { ...running, status: 'abandoned' } })).toEqual(['abandon_experiment']);
  });

  it('on a running experiment: allocation, settings and target apps', () => {
    expect(changeTypesOf(update('experiment', running, { allocation: 80 }))).toEqual(['update_allocation']);
    expect(changeTypesOf(update('experiment', running, { groups: [{ name: 'a', size: 60 }, { name: 'b', size: 40 }] }))).toEqual(['update_experiment_settings']);
    expect(changeTypesOf(update('experiment', running, { targetingGateID: 'g' }))).toEqual(['update_experiment_settings']);
    expect(changeTypesOf(update('experiment', running, { targetApps: ['ios'] }))).toEqual(['update_target_apps']);
    expect(changeTypesOf(update('experiment', running, { allocation: 80, groups: [] }))).toEqual(['update_experiment_settings', 'update_allocation']);
  });

  it('descriptive edits of a running experiment and any edit before it starts do not trigger', () => {
    expect(changeTypesOf(update('experiment', running, { hypothesis: 'better', tags: ['x'] }))).toEqual([]);
    expect(changeTypesOf(update('experiment', { ...running, status: 'setup' }, { allocation: 80, groups: [] }))).toEqual([]);
    expect(changeTypesOf(update('experiment', { ...running, status: 'decision_made' }, { allocation: 80 }))).toEqual([]);
  });

  it('creating or deleting an experiment does not trigger', () => {
    expect(changeTypesOf({ configType: 'experiment', action: 'create', before: undefined, after: running })).toEqual([]);
    expect(changeTypesOf({ configType: 'experiment', action: 'delete', before: running, after: undefined })).toEqual([]);
  });
});

describe('changeTypesOf: other kinds', () => {
  it('never triggers for holdouts, layers, AI configs', () => {
    for (const configType of ['holdout', 'layer', 'prompt']) {
      expect(changeTypesOf(update(configType, gate, { rules: [] }))).toEqual([]);
      expect(changeTypesOf({ configType, action: 'create', before: undefined, after: gate })).toEqual([]);
    }
  });
});

describe('changeTypesOf: archive, unarchive and reset', () => {
  it.each(['gate', 'dynamic_config', 'segment'])('archiving or unarchiving a %s is a rules change', (configType) => {
    const archived = { ...gate, status: 'Archived' };
    expect(changeTypesOf({ configType, action: 'archive', before: gate, after: archived })).toEqual(['rules']);
    expect(changeTypesOf({ configType, action: 'unarchive', before: archived, after: gate })).toEqual(['rules']);
  });

  it('an experiment reset is start_experiment; its archive and unarchive trigger nothing', () => {
    const experiment = { id: 'e', status: 'abandoned' };
    expect(changeTypesOf({ configType: 'experiment', action: 'reset', before: experiment, after: { ...experiment, status: 'active' } })).toEqual(['start_experiment']);
    expect(changeTypesOf({ configType: 'experiment', action: 'archive', before: experiment, after: { ...experiment, status: 'archived' } })).toEqual([]);
    expect(changeTypesOf({ configType: 'experiment', action: 'unarchive', before: { ...experiment, status: 'archived' }, after: experiment })).toEqual([]);
  });
});

describe('changeTypesOf: overrides', () => {
  const overrides = { passingUserIDs: ['u1'], failingUserIDs: [], passingCustomIDs: [], failingCustomIDs: [], environmentOverrides: [] };

  it("a gate's overrides change what it serves: rules", () => {
    expect(changeTypesOf(update('gate', gate, { overrides }))).toEqual(['rules']);
  });

  it("an experiment's overrides while it runs are update_experiment_settings; before it starts or after, none", () => {
    const running = { id: 'e', status: 'active', overrides: [], userIDOverrides: [] };
    expect(changeTypesOf(update('experiment', running, { overrides: [{ type: 'gate', id: 'g', groupID: 'Test' }] }))).toEqual(['update_experiment_settings']);
    expect(changeTypesOf(update('experiment', running, { userIDOverrides: [{ groupID: 'Test', ids: ['u1'] }] }))).toEqual(['update_experiment_settings']);
    for (const status of ['setup', 'decision_made', 'abandoned']) {
      expect(changeTypesOf(update('experiment', { ...running, status }, { userIDOverrides: [{ groupID: 'Test', ids: ['u1'] }] }))).toEqual([]);
    }
  });

  it("a layer's overrides never trigger", () => {
    expect(changeTypesOf(update('layer', { id: 'l' }, { conditionalOverrides: [{ type: 'gate', name: 'g', experimentName: 'e', groupName: 'Test' }], idOverrides: [] }))).toEqual([]);
  });
});
