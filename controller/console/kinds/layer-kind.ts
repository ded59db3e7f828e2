import { LAYER_DEFAULTS, LayerCreateSchema, LayerPatchSchema, LayerSchema, LayerUpdateSchema } from '../../../schemas/layer.js';
import { layerRuleErrors, matchesLayerType } from '../../core/experiment-rules.js';
import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { refusedWhileReferenced } from './entity-references.js';
import { holdoutIDsFor } from './holdout-ids.js';
import type { EntityLookup, KindDef } from './kind-def.js';
import { hasTag } from './list-filters.js';

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

export const layerKind: KindDef = {
  kind: 'layer',
  path: 'layers',
  label: 'Layer',
  tag: 'Layers',
  idField: 'id',
  schemas: { create: LayerCreateSchema, update: LayerUpdateSchema, patch: LayerPatchSchema, response: LayerSchema },
  defaults: LAYER_DEFAULTS,
  initial: () => ({ isImplicitLayer: false }),
  validate: (layer, lookup) => [...layerRuleErrors(layer), ...usageErrors(layer, lookup)],
  deleteBlocker: refusedWhileReferenced('layer', 'Layer'),
  decorate: (layer, lookup) => ({ holdoutIDs: holdoutIDsFor('layer', layer, lookup) }),
  filters: {
    idType: (l, v) => l['idType'] === v,
    tags: hasTag,
  },
  deletable: true,
};
