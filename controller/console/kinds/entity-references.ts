import type { EntityLookup } from './kind-def.js';

/** Fields of one kind that name entities of another: `holdout.gateIDs` names gates. */
const REFERENCES: ReadonlyArray<{ from: string; field: string; to: string }> = [
  { from: 'experiment', field: 'targetingGateID', to: 'gate' },
  { from: 'experiment', field: 'layerID', to: 'layer' },
  { from: 'experiment', field: 'assignmentSourceName', to: 'assignment_source' },
  { from: 'holdout', field: 'gateIDs', to: 'gate' },
  { from: 'holdout', field: 'targetingGateID', to: 'gate' },
  { from: 'holdout', field: 'experimentIDs', to: 'experiment' },
  { from: 'holdout', field: 'layerIDs', to: 'layer' },
];

const names = (value: unknown, id: string): boolean => value === id || (Array.isArray(value) && value.includes(id));

/** Every entity that names (kind, id), as `holdout h1 (gateIDs)`. */
export function referrersOf(kind: string, id: string, lookup: EntityLookup): string[] {
  const found: string[] = [];
  for (const ref of REFERENCES.filter((r) => r.to === kind)) {
    for (const record of lookup.list(ref.from)) {
      if (names(record.data[ref.field], id)) found.push(`${ref.from.replace(/_/g, ' ')} ${record.id} (${ref.field})`);
    }
  }
  return found;
}

/**
 * A deleteBlocker: an entity others refer to can't be deleted, so no reference ever dangles (the
 * reconciler deletes in reverse dependency order, referrers first).
 */
export function refusedWhileReferenced(kind: string, label: string): (id: string, lookup: EntityLookup) => string | undefined {
  return (id, lookup) => {
    const referrers = referrersOf(kind, id, lookup);
    return referrers.length === 0 ? undefined : `${label} ${id} is used by ${referrers.join(', ')}; remove those references first.`;
  };
}
