/**
 * Names of compiled specs. Gates, dynamic configs, experiments and layers keep their ids, so an app
 * calls `checkGate(user, 'new_checkout')` as it would against Statsig. Segments and holdouts are
 * compiled to gates as well; a prefix with a colon (which no entity id may contain) keeps them
 * apart from gates of the same id. `segment:` is the prefix Statsig itself uses, and the SDK leaves
 * those gates out of the exposures it logs.
 */
export const gateSpecName = (id: string): string => id;
export const segmentSpecName = (id: string): string => `segment:${id}`;
export const holdoutSpecName = (id: string): string => `holdout:${id}`;
/** The gate an experiment's inline targeting rules compile to. */
export const targetingSpecName = (experimentId: string): string => `segment:${experimentId}:targeting`;

/**
 * The salt of an entity: its kind and id, which never change (a rename changes the name only), so
 * a unit keeps its bucket however the entity is renamed or its rules reordered. Rules are salted
 * with their own stable ids.
 */
export const entitySalt = (kind: string, id: string): string => `${kind}:${id}`;
