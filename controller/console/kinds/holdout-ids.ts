import type { JsonObject } from '../../store/ports.js';
import type { EntityLookup } from './kind-def.js';

/**
 * Whether a holdout's id list names `id`. No copy of the list: this runs for every holdout on every
 * gate, experiment and layer a listing answers, and only a string can equal a string.
 */
const names = (list: unknown, id: string): boolean => Array.isArray(list) && list.includes(id);

/**
 * Whether an enabled holdout applies to an entity:
 * - gate: named in gateIDs, or the holdout is global and the gate was created at or after the holdout
 *   (spec: a global holdout applies to all new gates);
 * - experiment: named in experimentIDs, or its layer is named in layerIDs;
 * - layer: named in layerIDs.
 * Holdouts name no dynamic configs or AI configs, so none apply to them.
 */
function applies(holdout: JsonObject, kind: string, entity: JsonObject): boolean {
  if (holdout['isEnabled'] === false) return false;
  const id = entity['id'];
  switch (kind) {
    case 'gate': {
      if (names(holdout['gateIDs'], String(id))) return true;
      const gateCreated = entity['createdTime'];
      const holdoutCreated = holdout['createdTime'];
      return holdout['isGlobal'] === true && typeof gateCreated === 'number' && typeof holdoutCreated === 'number' && gateCreated >= holdoutCreated;
    }
    case 'experiment': {
      const layer = entity['layerID'];
      return names(holdout['experimentIDs'], String(id)) || (typeof layer === 'string' && names(holdout['layerIDs'], layer));
    }
    case 'layer':
      return names(holdout['layerIDs'], String(id));
    default:
      return false;
  }
}

/** Ids of the holdouts that apply to an entity: the computed `holdoutIDs` of its response. */
export function holdoutIDsFor(kind: string, entity: JsonObject, lookup: EntityLookup): string[] {
  if (kind !== 'gate' && kind !== 'experiment' && kind !== 'layer') return [];
  return lookup
    .list('holdout')
    .filter((h) => applies(h.data, kind, entity))
    .map((h) => h.id);
}
