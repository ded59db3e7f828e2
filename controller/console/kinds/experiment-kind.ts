import { ExperimentAbandonSchema, ExperimentDecisionSchema, ExperimentOverridesChangeSchema, ExperimentOverridesSchema, ExperimentSchema, ExperimentStartSchema } from '../../../schemas/experiment.js';
import { matchesLayerType } from '../../core/experiment-rules.js';
import { jsonEqual } from '../../core/json-equal.js';
import { EXPERIMENT_OVERRIDES, normalizeOverrides } from '../../core/override-rules.js';
import { ConflictError, InputError, type FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { refusedWhileReferenced } from './entity-references.js';
import { holdoutIDsFor } from './holdout-ids.js';
import { declaredKind } from './declared-kind.js';
import type { EntityLookup, KindDef } from './kind-def.js';
import { equals, hasTag } from './list-filters.js';
import { gateOrSegmentErrors, overrideEndpoints } from './override-endpoints.js';
import { conformToSchema } from './response-shape.js';
import { withRuleIds } from './rule-ids.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What may change when (the state machine is setup → active → decision_made | abandoned):
 * - setup: every writable field.
 * - active: all but the fields below, which would reassign units mid-experiment; of the groups only
 *   description, disabled, highlighted and foreignGroupID may change. Allocation, targeting, metrics,
 *   analysis settings and metadata stay writable (changes of an ongoing experiment, of change type
 *   update_allocation or update_experiment_settings).
 * - decision_made, abandoned: additionally the groups, allocation and targeting are final; metadata,
 *   metrics and analysis settings stay writable.
 */
const FIXED_ONCE_STARTED = ['idType', 'secondaryIDType', 'layerID', 'userBuckets', 'controlGroupID', 'assignmentSourceName', 'assignmentSourceExperimentName', 'isAnalysisOnly'] as const;
const FIXED_GROUP_FIELDS_ONCE_STARTED = ['id', 'name', 'size', 'parameterValues'] as const;
const FIXED_ONCE_CONCLUDED = ['allocation', 'targetingGateID', 'inlineTargetingRules', 'groups'] as const;

// An archived experiment assigns nobody, like a concluded one: the same fields are final and it holds no layer place.
const isConcluded = (status: unknown): boolean => status === 'decision_made' || status === 'abandoned' || status === 'archived';
const groupsOf = (experiment: JsonObject | undefined): JsonObject[] => (experiment?.['groups'] as JsonObject[] | undefined) ?? [];
const nowOf = (lookup: EntityLookup): number => lookup.now?.() ?? Date.now();

function lockErrors(experiment: JsonObject, previous: JsonObject | undefined): FieldError[] {
  const status = previous?.['status'];
  if (previous === undefined || status === 'setup' || status === undefined) return [];
  const errors: FieldError[] = [];
  const why = `cannot change once the experiment is ${String(status)}`;
  const changed = (field: string): boolean => !jsonEqual(experiment[field] ?? null, previous[field] ?? null);
  const fields: readonly string[] = isConcluded(status) ? [...FIXED_ONCE_STARTED, ...FIXED_ONCE_CONCLUDED] : FIXED_ONCE_STARTED;
  for (const field of fields) if (changed(field)) errors.push({ property: field, errorMessage: why });
  if (isConcluded(status)) return errors;
  const before = groupsOf(previous);
  const after = groupsOf(experiment);
  if (after.length !== before.length) {
    errors.push({ property: 'groups', errorMessage: `groups cannot be added or removed once the experiment is ${String(status)}` });
    return errors;
  }
  after.forEach((group, i) => {
    for (const field of FIXED_GROUP_FIELDS_ONCE_STARTED) {
      if (!jsonEqual(group[field] ?? null, before[i]?.[field] ?? null)) errors.push({ property: `groups[${i}].${field}`, errorMessage: why });
    }
  });
  return errors;
}

function referenceErrors(experiment: JsonObject, lookup: EntityLookup): FieldError[] {
  const errors: FieldError[] = [];
  const check = (field: string, kind: string, what: string): void => {
    const value = experiment[field];
    if (typeof value === 'string' && lookup.get(kind, value) === undefined) errors.push({ property: field, errorMessage: `names no existing ${what} ('${value}')` });
  };
  check('targetingGateID', 'gate', 'gate');
  check('layerID', 'layer', 'layer');
  check('assignmentSourceName', 'assignment_source', 'assignment source');
  return errors;
}

/** An experiment in a layer shares its idType and parameters, and the layer's running experiments share at most 100%. */
function layerErrors(experiment: JsonObject, lookup: EntityLookup): FieldError[] {
  const layerID = experiment['layerID'];
  const layer = typeof layerID === 'string' ? lookup.get('layer', layerID) : undefined;
  if (layer === undefined) return [];
  const errors: FieldError[] = [];
  if (layer.data['idType'] !== experiment['idType']) {
    errors.push({ property: 'idType', errorMessage: `must equal the idType of layer ${layer.id} ('${String(layer.data['idType'])}')` });
  }
  const parameters = new Map(((layer.data['parameters'] as JsonObject[] | undefined) ?? []).map((p) => [p['name'], p['type']]));
  groupsOf(experiment).forEach((group, i) => {
    for (const [key, value] of Object.entries((group['parameterValues'] as JsonObject | undefined) ?? {})) {
      const property = `groups[${i}].parameterValues.${key}`;
      if (!parameters.has(key)) errors.push({ property, errorMessage: `is not a parameter of layer ${layer.id} (${[...parameters.keys()].join(', ') || 'it has none'})` });
      else if (!matchesLayerType(parameters.get(key), value)) errors.push({ property, errorMessage: `must be of type ${String(parameters.get(key))}, like the layer's parameter` });
    }
  });
  if (!isConcluded(experiment['status'])) {
    const others = lookup
      .list('experiment')
      .filter((e) => e.id !== experiment['id'] && e.data['layerID'] === layer.id && !isConcluded(e.data['status']))
      .reduce((sum, e) => sum + (typeof e.data['allocation'] === 'number' ? e.data['allocation'] : 0), 0);
    const allocation = typeof experiment['allocation'] === 'number' ? experiment['allocation'] : 0;
    if (others + allocation > 100 + 1e-9) {
      errors.push({ property: 'allocation', errorMessage: `exceeds what layer ${layer.id} has left: its other experiments use ${others}%, so at most ${Math.max(0, 100 - others)}% remains` });
    }
  }
  return errors;
}

const overrides = overrideEndpoints({
  ...EXPERIMENT_OVERRIDES,
  label: 'Experiment',
  schemas: { data: ExperimentOverridesSchema, replace: ExperimentOverridesSchema, change: ExperimentOverridesChangeSchema },
});

function qualityScoreOf(experiment: JsonObject): JsonObject | null {
  const scores = (experiment['manualQualityScores'] as JsonObject[] | undefined) ?? [];
  if (scores.length === 0) return null;
  const totalWeight = scores.reduce((sum, s) => sum + Number(s['weight']), 0);
  const weight = (s: JsonObject): number => (totalWeight === 0 ? 100 / scores.length : (Number(s['weight']) * 100) / totalWeight);
  return {
    score: scores.reduce((sum, s) => sum + (Number(s['score']) * weight(s)) / 100, 0),
    breakdown: scores.map((s) => ({ criterion: s['criteriaName'], status: s['status'], passingDescription: s['criteriaDescription'], score: s['score'], weight: weight(s) })),
  };
}

const HEALTH_ORDER = ['PASSED', 'WAITING', 'WARNING', 'FAILED'];

function healthCheckStatusOf(experiment: JsonObject): string {
  const checks = (experiment['healthChecks'] as JsonObject[] | undefined) ?? [];
  if (checks.length === 0) return 'WAITING';
  return checks.map((c) => String(c['status'])).reduce((worst, s) => (HEALTH_ORDER.indexOf(s) > HEALTH_ORDER.indexOf(worst) ? s : worst), 'PASSED');
}

function assertStatus(experiment: JsonObject, allowed: readonly string[], action: string): void {
  const status = String(experiment['status']);
  if (!allowed.includes(status)) {
    throw new ConflictError(`Experiment ${String(experiment['id'])} is ${status}; only an experiment that is ${allowed.join(' or ')} can ${action}.`);
  }
}

function groupToShip(experiment: JsonObject, body: { id?: string; name?: string }): JsonObject {
  const groups = groupsOf(experiment);
  const list = groups.map((g) => `${String(g['name'])} (${String(g['id'])})`).join(', ');
  if (body.id === undefined && body.name === undefined) {
    throw new InputError('Name the group to ship.', [{ property: 'id', errorMessage: `is required (or name): the group to ship, one of ${list}` }]);
  }
  const byId = body.id === undefined ? undefined : groups.find((g) => g['id'] === body.id);
  const byName = body.name === undefined ? undefined : groups.find((g) => g['name'] === body.name);
  if (body.id !== undefined && byId === undefined) throw new InputError('Unknown group.', [{ property: 'id', errorMessage: `names no group of the experiment; groups: ${list}` }]);
  if (body.name !== undefined && byName === undefined) throw new InputError('Unknown group.', [{ property: 'name', errorMessage: `names no group of the experiment; groups: ${list}` }]);
  if (byId && byName && byId !== byName) throw new InputError('Ambiguous group.', [{ property: 'name', errorMessage: `names another group than id '${body.id}'` }]);
  const group = (byId ?? byName) as JsonObject;
  if (group['disabled'] === true) throw new InputError('Disabled group.', [{ property: body.id !== undefined ? 'id' : 'name', errorMessage: `group ${String(group['name'])} is disabled and cannot ship` }]);
  return group;
}

export const experimentKind: KindDef = declaredKind('experiment', {
  initial: () => ({
    status: 'setup',
    startTime: null,
    endTime: null,
    decisionTime: null,
    decisionReason: null,
    launchedGroupID: null,
    healthChecks: [],
    activeReview: null,
  }),
  prepare: (experiment, previous) => normalizeOverrides(EXPERIMENT_OVERRIDES, {
    ...experiment,
    // Group ids are kept by name like rule ids, so a file that never names them doesn't churn them.
    groups: withRuleIds(experiment['groups'], previous?.['groups']).map(({ baseID: _b, ...g }) => g),
    inlineTargetingRules: withRuleIds(experiment['inlineTargetingRules'], previous?.['inlineTargetingRules']),
  }),
  validate: (experiment, lookup, previous) => [
    ...referenceErrors(experiment, lookup),
    ...layerErrors(experiment, lookup),
    ...lockErrors(experiment, previous),
    ...gateOrSegmentErrors(experiment['overrides'], 'overrides', 'id', lookup),
  ],
  deleteBlocker: refusedWhileReferenced('experiment', 'Experiment'),
  decorateReadsClock: true,
  decorate: (experiment, lookup) => {
    const start = experiment['startTime'];
    const duration = experiment['duration'];
    return {
      holdoutIDs: holdoutIDsFor('experiment', experiment, lookup),
      healthCheckStatus: healthCheckStatusOf(experiment),
      isStale: experiment['status'] === 'active' && typeof start === 'number' && typeof duration === 'number' && nowOf(lookup) > start + duration * DAY_MS,
      qualityScore: qualityScoreOf(experiment),
      // The JSON form of the rules as the response shows them, rollout lists included.
      inlineTargetingRulesJSON: JSON.stringify(conformToSchema(ExperimentSchema.shape.inlineTargetingRules, experiment['inlineTargetingRules'] ?? [])),
    };
  },
  actions: {
    ...overrides.actions,
    start: {
      done: 'started',
      body: ExperimentStartSchema,
      bodyOptional: true,
      apply: (e, body, lookup) => {
        assertStatus(e, ['setup'], 'start');
        const { analysisEndTime } = body as { analysisEndTime?: string };
        return { ...e, status: 'active', startTime: nowOf(lookup), ...(analysisEndTime === undefined ? {} : { analysisEndTime }) };
      },
    },
    make_decision: {
      done: 'shipped',
      body: ExperimentDecisionSchema,
      apply: (e, body, lookup) => {
        assertStatus(e, ['active'], 'ship a group');
        const decision = body as { id?: string; name?: string; decisionReason?: string; removeTargeting?: boolean };
        const group = groupToShip(e, decision);
        const now = nowOf(lookup);
        return {
          ...e,
          status: 'decision_made',
          launchedGroupID: group['id'],
          decisionReason: decision.decisionReason ?? null,
          decisionTime: now,
          endTime: now,
          ...(decision.removeTargeting === true ? { targetingGateID: null } : {}),
        };
      },
    },
    abandon: {
      done: 'abandoned',
      body: ExperimentAbandonSchema,
      bodyOptional: true,
      apply: (e, body, lookup) => {
        assertStatus(e, ['setup', 'active'], 'be abandoned');
        const now = nowOf(lookup);
        return { ...e, status: 'abandoned', decisionReason: (body as { decisionReason?: string }).decisionReason ?? null, decisionTime: now, endTime: now };
      },
    },
    reset: {
      done: 'reset',
      // Restarts the experiment: a new start time, and any decision forgotten.
      apply: (e, _body, lookup) => {
        assertStatus(e, ['active', 'decision_made', 'abandoned'], 'be reset (it has not started yet)');
        return { ...e, status: 'active', startTime: nowOf(lookup), endTime: null, decisionTime: null, decisionReason: null, launchedGroupID: null };
      },
    },
    archive: {
      done: 'archived',
      apply: (e) => {
        if (e['status'] === 'archived') return e;
        assertStatus(e, ['setup', 'decision_made', 'abandoned'], 'be archived (ship or abandon it first)');
        return { ...e, status: 'archived', statusBeforeArchive: e['status'] };
      },
    },
    unarchive: {
      done: 'unarchived',
      apply: (e) => {
        if (e['status'] !== 'archived') return e;
        const { statusBeforeArchive, ...rest } = e;
        return { ...rest, status: typeof statusBeforeArchive === 'string' ? statusBeforeArchive : 'setup' };
      },
    },
  },
  views: overrides.views,
  filters: {
    status: equals('status'),
    layerID: equals('layerID'),
    idType: equals('idType'),
    teamID: equals('teamID'),
    creatorID: equals('creatorID'),
    creatorName: equals('creatorName'),
    tags: hasTag,
  },
});
