/**
 * Which pre-commit webhook change types a reviewed change falls under (spec: "Events", change
 * types). Pure: the review service asks it at submission, and the answer decides whether a commit
 * waits for the customer's validation. The mapping is documented in docs/reviews.md.
 */
import { jsonEqual } from './json-equal.js';

export const WEBHOOK_CHANGE_TYPES = [
  'rules',
  'update_target_apps',
  'update_allocation',
  'start_experiment',
  'ship_experiment',
  'abandon_experiment',
  'update_experiment_settings',
] as const;
export type WebhookChangeType = (typeof WEBHOOK_CHANGE_TYPES)[number];

export type ChangeAction = 'update' | 'create' | 'delete' | 'start' | 'ship' | 'abandon' | 'reset' | 'archive' | 'unarchive';

type Json = Record<string, unknown>;

export interface ChangeFacts {
  /** gate, dynamic_config, segment, experiment, or any other kind (which never triggers). */
  configType: string;
  action: ChangeAction;
  /** Stored entity before the change; undefined for a create. */
  before: Json | undefined;
  /** Stored entity after the change; undefined for a delete. */
  after: Json | undefined;
}

/** Kinds whose evaluation is defined by rules: any change that can alter what they serve is `rules`. */
export const RULE_KINDS: readonly string[] = ['gate', 'dynamic_config', 'segment'];

/**
 * Fields of gates, dynamic configs and segments that describe the entity but never change what it
 * serves. Everything else (rules, isEnabled, defaultValue, idType, schema, ids, ...) counts as
 * `rules`, so a field added later triggers validation until someone decides it is harmless.
 */
export const DESCRIPTIVE_FIELDS: readonly string[] = [
  'name',
  'description',
  'tags',
  'owner',
  'team',
  'teamID',
  'creatorID',
  'creatorEmail',
  'creatorName',
  'monitoringMetrics',
  'measureMetricLifts',
  'reviewSettings',
  'releasePipelineID',
  'isTemplate',
  // JSON5 twins: their parsed JSON (defaultValue, schema) is compared instead, so a comment-only edit is descriptive.
  'defaultValueJson5',
  'schemaJson5',
  // Server-managed stamps and computed fields.
  'version',
  'createdTime',
  'lastModifiedTime',
  'lastModifierID',
  'lastModifierName',
  'lastModifierEmail',
  'holdoutIDs',
  'permalink',
];

/** A gate's type (PERMANENT/TEMPORARY) is bookkeeping; a segment's type (rule_based/id_list) is not. */
const KIND_DESCRIPTIVE_FIELDS: Readonly<Record<string, readonly string[]>> = { gate: ['type', 'typeReason'] };

/** Experiment statuses in which it is "ongoing" (spec: update_allocation, update_experiment_settings). */
export const ONGOING_EXPERIMENT_STATUSES: readonly string[] = ['active'];

/**
 * Settings of an experiment that decide who is in it and what they get: changing one while it runs
 * is `update_experiment_settings`. Analysis settings (metrics, hypothesis, durations...) are not.
 */
export const EXPERIMENT_SETTINGS_FIELDS: readonly string[] = [
  'groups',
  'idType',
  'secondaryIDType',
  'layerID',
  'targetingGateID',
  'inlineTargetingRules',
  'inlineTargetingRulesJSON',
  'controlGroupID',
  // Overrides force units into groups: who gets what changes while it runs.
  'overrides',
  'userIDOverrides',
];

function changedFields(before: Json, after: Json): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => !jsonEqual(before[k] ?? null, after[k] ?? null)).sort();
}

/**
 * The change types of a change, the one the webhook is sent with first. Empty: the change commits
 * without the webhook.
 */
export function changeTypesOf(facts: ChangeFacts): WebhookChangeType[] {
  const { configType, action, before, after } = facts;
  if (RULE_KINDS.includes(configType)) {
    // An archived gate, config or segment serves nothing it did: archiving and unarchiving change what it serves.
    if (action === 'create' || action === 'delete' || action === 'archive' || action === 'unarchive') return ['rules'];
    if (action !== 'update' || !before || !after) return [];
    const changed = changedFields(before, after);
    const types: WebhookChangeType[] = [];
    const descriptive = [...DESCRIPTIVE_FIELDS, ...(KIND_DESCRIPTIVE_FIELDS[configType] ?? [])];
    if (changed.some((f) => f !== 'targetApps' && !descriptive.includes(f))) types.push('rules');
    if (changed.includes('targetApps')) types.push('update_target_apps');
    return types;
  }
  if (configType === 'experiment') {
    if (action === 'start') return ['start_experiment'];
    if (action === 'ship') return ['ship_experiment'];
    if (action === 'abandon') return ['abandon_experiment'];
    // A reset restarts assignment from scratch; archiving moves only a concluded or unstarted experiment.
    if (action === 'reset') return ['start_experiment'];
    if (action !== 'update' || !before || !after) return [];
    if (!ONGOING_EXPERIMENT_STATUSES.includes(String(before['status']))) return [];
    const changed = changedFields(before, after);
    const types: WebhookChangeType[] = [];
    if (changed.some((f) => EXPERIMENT_SETTINGS_FIELDS.includes(f))) types.push('update_experiment_settings');
    if (changed.includes('allocation')) types.push('update_allocation');
    if (changed.includes('targetApps')) types.push('update_target_apps');
    return types;
  }
  return [];
}
