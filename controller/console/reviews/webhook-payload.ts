import type { WebhookChangeType } from '../../core/change-type.js';
import type { JsonObject, ReviewRecord } from '../../store/ports.js';

const LIFECYCLE_TYPES: readonly WebhookChangeType[] = ['start_experiment', 'ship_experiment', 'abandon_experiment'];

/** The experiment settings the reference sends as old_settings/new_settings. */
function experimentSettings(config: JsonObject | null): JsonObject | null {
  if (!config) return null;
  const groups = Array.isArray(config['groups']) ? (config['groups'] as JsonObject[]) : [];
  return {
    groups: groups.map((g) => ({ name: g['name'], parameterValuesJSON: JSON.stringify(g['parameterValues'] ?? {}), size: g['size'] })),
    allocation: config['allocation'] ?? null,
    targetingGateID: config['targetingGateID'] ?? null,
    inlineTargetingRulesJSON: config['inlineTargetingRules'] === undefined ? null : JSON.stringify(config['inlineTargetingRules']),
  };
}

function shippedGroup(config: JsonObject | null): string | null {
  const launched = config?.['launchedGroupID'];
  if (typeof launched !== 'string') return null;
  const groups = Array.isArray(config?.['groups']) ? (config['groups'] as JsonObject[]) : [];
  const group = groups.find((g) => g['id'] === launched);
  return typeof group?.['name'] === 'string' ? group['name'] : launched;
}

/**
 * The pre-commit webhook body (spec "Events"): the common fields, `type` (the review's first change
 * type, which the caller passes), `old_config`/`new_config` for gates, dynamic configs and segments, `old_experiment`/
 * `new_experiment` for changes of a running experiment, plus the per-type fields the reference adds (old/new target apps,
 * allocation, settings, the shipped group). Configs are in the read format, as they were reviewed.
 */
export function buildWebhookPayload(review: ReviewRecord, type: WebhookChangeType, committer: string): JsonObject {
  const payload: JsonObject = {
    review_id: review.id,
    submitter: review.submitter,
    committer,
    config_type: review.kind,
  };
  const { oldConfig, newConfig } = review;
  if (review.kind === 'experiment') {
    payload['experiment_name'] = review.entityId;
    payload['type'] = type;
    // Lifecycle changes carry no experiment (spec: no extra payload); changes of a running
    // experiment carry it before and after, so a receiver can compare it with its own source.
    if (!LIFECYCLE_TYPES.includes(type)) {
      payload['old_experiment'] = oldConfig;
      payload['new_experiment'] = newConfig;
    }
    if (type === 'update_allocation') {
      payload['old_allocation'] = oldConfig?.['allocation'] ?? null;
      payload['new_allocation'] = newConfig?.['allocation'] ?? null;
    } else if (type === 'start_experiment') {
      payload['new_allocation'] = newConfig?.['allocation'] ?? null;
    } else if (type === 'ship_experiment') {
      payload['group'] = shippedGroup(newConfig);
    } else if (type === 'update_experiment_settings') {
      payload['old_settings'] = experimentSettings(oldConfig);
      payload['new_settings'] = experimentSettings(newConfig);
    }
  } else {
    payload['config_name'] = review.entityId;
    payload['type'] = type;
    payload['old_config'] = oldConfig;
    payload['new_config'] = newConfig;
  }
  if (review.changeTypes.includes('update_target_apps')) {
    payload['old_target_apps'] = (oldConfig?.['targetApps'] as unknown) ?? [];
    payload['new_target_apps'] = (newConfig?.['targetApps'] as unknown) ?? [];
  }
  return payload;
}
