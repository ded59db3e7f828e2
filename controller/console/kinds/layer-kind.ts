import { LayerOverridesChangeSchema, LayerOverridesSchema } from '../../../schemas/layer.js';
import { matchesLayerType } from '../../core/experiment-rules.js';
import { LAYER_OVERRIDES, normalizeOverrides } from '../../core/override-rules.js';
import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { refusedWhileReferenced } from './entity-references.js';
import { holdoutIDsFor } from './holdout-ids.js';
import { declaredKind } from './declared-kind.js';
import type { EntityLookup, KindDef } from './kind-def.js';
import { equals, hasTag } from './list-filters.js';
import { gateOrSegmentErrors, overrideEndpoints } from './override-endpoints.js';

/**
 * A layer may change while experiments use it, as long as they stay valid: the same idType, and
 * every parameter value their groups set still declared with the same type.
 */
function usageErrors(layer: JsonObject, lookup: EntityLookup): FieldError[] {
  const errors: FieldError[] = [];
  const users = lookup.list('experiment').filter((e) => e.data['layerID'] === layer['id']);
  if (users.length === 0) return errors;
  if (users.some((e) => e.data['idType'] !== layer['idType'])) {
    errors.push({ property: 'idType', errorMessage: `cannot change while experiments use the layer (${users.map((e) => e.id).join(', ')})` });
  }
  const parameters = new Map(((layer['parameters'] as JsonObject[] | undefined) ?? []).map((p) => [p['name'], p['type']]));
  for (const experiment of users) {
    for (const group of (experiment.data['groups'] as JsonObject[] | undefined) ?? []) {
      for (const [key, value] of Object.entries((group['parameterValues'] as JsonObject | undefined) ?? {})) {
        if (!parameters.has(key)) errors.push({ property: 'parameters', errorMessage: `must declare '${key}': group ${String(group['name'])} of experiment ${experiment.id} sets it` });
        else if (!matchesLayerType(parameters.get(key), value)) {
          errors.push({ property: 'parameters', errorMessage: `'${key}' is declared ${String(parameters.get(key))}, but group ${String(group['name'])} of experiment ${experiment.id} sets a value of another type` });
        }
      }
    }
  }
  return errors;
}

const overrides = overrideEndpoints({ ...LAYER_OVERRIDES, label: 'Layer', schemas: { data: LayerOverridesSchema, replace: LayerOverridesSchema, change: LayerOverridesChangeSchema } });

/**
 * Overrides name gates and segments that exist, and groups of the layer's experiments. An experiment
 * that does not exist yet is accepted: layers are created before the experiments in them (a config
 * repository applies them in that order), so a new layer's overrides name experiments still to come.
 */
function overrideErrors(layer: JsonObject, lookup: EntityLookup): FieldError[] {
  const errors = [...gateOrSegmentErrors(layer['conditionalOverrides'], 'conditionalOverrides', 'name', lookup)];
  for (const field of ['conditionalOverrides', 'idOverrides']) {
    ((layer[field] as JsonObject[] | undefined) ?? []).forEach((entry, i) => {
      const name = entry['experimentName'];
      const experiment = typeof name === 'string' ? lookup.get('experiment', name) : undefined;
      if (experiment === undefined) return;
      if (experiment.data['layerID'] !== layer['id']) {
        errors.push({ property: `${field}[${i}].experimentName`, errorMessage: `experiment ${experiment.id} is not in layer ${String(layer['id'])}` });
        return;
      }
      const groups = ((experiment.data['groups'] as JsonObject[] | undefined) ?? []).map((g) => g['name']);
      if (!groups.includes(entry['groupName'])) {
        errors.push({ property: `${field}[${i}].groupName`, errorMessage: `names no group of experiment ${experiment.id} ('${String(entry['groupName'])}'); groups: ${groups.join(', ')}` });
      }
    });
  }
  return errors;
}

export const layerKind: KindDef = declaredKind('layer', {
  initial: () => ({ isImplicitLayer: false }),
  prepare: (layer) => normalizeOverrides(LAYER_OVERRIDES, layer),
  validate: (layer, lookup) => [...usageErrors(layer, lookup), ...overrideErrors(layer, lookup)],
  deleteBlocker: refusedWhileReferenced('layer', 'Layer'),
  decorate: (layer, lookup) => ({ holdoutIDs: holdoutIDsFor('layer', layer, lookup) }),
  actions: overrides.actions,
  views: overrides.views,
  filters: {
    idType: equals('idType'),
    tags: hasTag,
  },
});
