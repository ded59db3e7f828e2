import { createHash } from 'node:crypto';

/** The SDK's user_bucket condition divides units into this many buckets (statsig-node USER_BUCKET_COUNT). */
export const LAYER_BUCKETS = 1000;

/** The experiment of a layer, as far as its buckets go. */
export interface BucketClaim {
  id: string;
  /** Percent of the layer, 0 to 100. */
  allocation: number;
  /** When it started; undefined while in setup. */
  startTime: number | undefined;
  /** When it concluded (shipped or abandoned); undefined while it runs. */
  endTime: number | undefined;
  /** Buckets the experiment states itself (`userBuckets`), used first. */
  userBuckets: readonly number[];
}

/**
 * The buckets an experiment prefers, best first: a fixed shuffle of its own (seeded by its id), so
 * claims of several experiments rarely collide. One hash per experiment: layers are compiled on
 * every write.
 */
function preference(id: string): readonly number[] {
  const known = preferences.get(id);
  if (known !== undefined) return known;
  const order = shuffled(id);
  if (preferences.size >= PREFERENCES_MAX) preferences.clear();
  preferences.set(id, order);
  return order;
}

/** Shuffles already made: the specs are compiled on every write, the experiments rarely change. */
const preferences = new Map<string, readonly number[]>();
const PREFERENCES_MAX = 20_000;

function shuffled(id: string): number[] {
  const seed = createHash('sha256').update(`layer-buckets.${id}`).digest();
  let state = seed.readUInt32BE(0) | 1;
  // xorshift32: plenty for a shuffle that only has to be fixed and spread out.
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const order = Array.from({ length: LAYER_BUCKETS }, (_, bucket) => bucket);
  for (let i = order.length - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

const wanted = (claim: BucketClaim): number => Math.max(0, Math.min(LAYER_BUCKETS, Math.round(claim.allocation * (LAYER_BUCKETS / 100))));

/**
 * The layer buckets of each started experiment, worked out from stored times alone (no storage of
 * its own): experiments claim in the order they started, each taking its preferred buckets among
 * those not held by an experiment that was still running when it started. So an experiment's units
 * stay where they are for as long as it runs, whatever starts or concludes after it; buckets an
 * experiment frees go to experiments that start later. Experiments still in setup hold none.
 */
export function layerBuckets(claims: readonly BucketClaim[]): ReadonlyMap<string, readonly number[]> {
  // The same claims give the same buckets: a layer whose experiments didn't change since the last
  // compilation (nearly every layer, after a write) costs a lookup.
  const signature = JSON.stringify(claims.map((c) => [c.id, c.allocation, c.startTime ?? null, c.endTime ?? null, c.userBuckets]));
  const known = claimed.get(signature);
  if (known !== undefined) return known;
  const result = assign(claims);
  if (claimed.size >= CLAIMED_MAX) claimed.clear();
  claimed.set(signature, result);
  return result;
}

const claimed = new Map<string, ReadonlyMap<string, readonly number[]>>();
const CLAIMED_MAX = 10_000;

function assign(claims: readonly BucketClaim[]): Map<string, number[]> {
  const started = claims
    .filter((c) => c.startTime !== undefined)
    .sort((a, b) => (a.startTime as number) - (b.startTime as number) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const result = new Map<string, number[]>();
  started.forEach((claim, index) => {
    const start = claim.startTime as number;
    const held = new Set<number>();
    for (let i = 0; i < index; i++) {
      const earlier = started[i] as BucketClaim;
      if (earlier.endTime === undefined || earlier.endTime > start) for (const b of result.get(earlier.id) ?? []) held.add(b);
    }
    const count = wanted(claim);
    const mine = new Set<number>();
    const take = (bucket: number): void => {
      if (mine.size < count && Number.isInteger(bucket) && bucket >= 0 && bucket < LAYER_BUCKETS && !held.has(bucket)) mine.add(bucket);
    };
    claim.userBuckets.forEach(take);
    for (const bucket of preference(claim.id)) {
      if (mine.size >= count) break;
      take(bucket);
    }
    result.set(claim.id, [...mine].sort((a, b) => a - b));
  });
  return result;
}

/** The buckets of an experiment outside any layer: the first `allocation` of its own order, so raising the allocation only adds units. */
export function ownBuckets(id: string, allocation: number): number[] {
  return preference(id)
    .slice(0, wanted({ id, allocation, startTime: 0, endTime: undefined, userBuckets: [] }))
    .sort((a, b) => a - b);
}
