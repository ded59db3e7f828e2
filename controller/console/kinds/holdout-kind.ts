import type { FieldError } from '../../errors.js';
import type { JsonObject } from '../../store/ports.js';
import { declaredKind } from './declared-kind.js';
import type { EntityLookup, KindDef } from './kind-def.js';
import { equals, hasTag } from './list-filters.js';

const TARGETS = [
  { field: 'gateIDs', kind: 'gate', what: 'gate' },
  { field: 'experimentIDs', kind: 'experiment', what: 'experiment' },
  { field: 'layerIDs', kind: 'layer', what: 'layer' },
] as const;

/** Every id a holdout names exists and randomises on the holdout's idType. */
function referenceErrors(holdout: JsonObject, lookup: EntityLookup): FieldError[] {
  const errors: FieldError[] = [];
  const check = (property: string, kind: string, what: string, id: unknown): void => {
    if (typeof id !== 'string') return;
    const target = lookup.get(kind, id);
    if (target === undefined) errors.push({ property, errorMessage: `names no existing ${what} ('${id}')` });
    // The targeting gate only filters the population; what is held out must randomise on the same unit.
    else if (property !== 'targetingGateID' && target.data['idType'] !== holdout['idType']) {
      errors.push({ property, errorMessage: `${what} ${id} uses idType '${String(target.data['idType'])}', the holdout '${String(holdout['idType'])}'` });
    }
  };
  for (const { field, kind, what } of TARGETS) {
    ((holdout[field] as unknown[] | undefined) ?? []).forEach((id, i) => check(`${field}[${i}]`, kind, what, id));
  }
  check('targetingGateID', 'gate', 'gate', holdout['targetingGateID']);
  return errors;
}

export const holdoutKind: KindDef = declaredKind('holdout', {
  validate: (holdout, lookup) => referenceErrors(holdout, lookup),
  filters: {
    idType: equals('idType'),
    creatorID: equals('creatorID'),
    creatorName: equals('creatorName'),
    tags: hasTag,
  },
});
