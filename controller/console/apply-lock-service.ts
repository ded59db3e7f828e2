import type { ApplyLock } from '../../schemas/apply-lock.js';
import { ConflictError } from '../errors.js';
import type { LeaseRepo, Store } from '../store/ports.js';
import type { Actor } from './permissions.js';

/** Lease names of apply locks (the webhook deliveries' are `webhook:`). */
const PREFIX = 'apply:';

interface Held {
  owner: string;
  expiresAt: number;
}

/**
 * Leases in this process, for a store without shared ones (SQLite, the memory fake): one console
 * serves such a database, so its memory is where the locks are. A restart forgets them; the holders
 * renew within a third of their lease and take them again.
 */
class LocalLeases implements LeaseRepo {
  private readonly held = new Map<string, Held>();
  constructor(private readonly clock: () => number) {}

  async acquire(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.clock();
    const current = this.held.get(name);
    if (current && current.owner !== owner && current.expiresAt >= now) return false;
    this.held.set(name, { owner, expiresAt: now + Math.round(ttlMs) });
    return true;
  }

  async release(name: string, owner: string): Promise<void> {
    if (this.held.get(name)?.owner === owner) this.held.delete(name);
  }

  async list(prefix: string): Promise<{ name: string; owner: string; expiresAt: number }[]> {
    const now = this.clock();
    const live: { name: string; owner: string; expiresAt: number }[] = [];
    for (const [name, held] of this.held) {
      if (held.expiresAt < now) this.held.delete(name);
      else if (name.startsWith(prefix)) live.push({ name, ...held });
    }
    return live.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

/** A lease's owner: the holder's token, the user and what the holder said, as one stable string. */
const ownerOf = (holder: string, actor: Actor, description: string): string => JSON.stringify([holder, actor.userEmail, description]);

function lockOf(name: string, owner: string, expiresAt: number): ApplyLock {
  let by = 'unknown';
  let description = '';
  try {
    const parsed = JSON.parse(owner) as unknown;
    if (Array.isArray(parsed)) {
      by = String(parsed[1]);
      description = String(parsed[2] ?? '');
    }
  } catch {
    // not one of ours
  }
  return { name: name.slice(PREFIX.length), heldBy: by, description, expiresTime: expiresAt };
}

/**
 * Locks `flagops apply` takes on a repository and branch, so two applies of one repository never
 * interleave: leases in the database shared by the replicas (PostgreSQL), else in this process. A
 * holder renews its lease; one that dies stops, and the lock expires.
 */
export class ApplyLockService {
  private readonly leases: LeaseRepo;
  constructor(deps: { store: Pick<Store, 'leases'>; clock: () => number }) {
    this.leases = deps.store.leases ?? new LocalLeases(deps.clock);
  }

  /** Takes or renews the lock; a ConflictError saying who holds it when another holder does. */
  async acquire(name: string, holder: string, actor: Actor, description: string, ttlMs: number): Promise<ApplyLock> {
    const owner = ownerOf(holder, actor, description);
    if (await this.leases.acquire(PREFIX + name, owner, ttlMs)) {
      const mine = (await this.leases.list(PREFIX + name)).find((lease) => lease.name === PREFIX + name && lease.owner === owner);
      if (mine) return lockOf(mine.name, mine.owner, mine.expiresAt);
    }
    const other = (await this.leases.list(PREFIX + name)).find((lease) => lease.name === PREFIX + name);
    if (!other) throw new ConflictError(`The apply lock on ${name} changed hands meanwhile; try again.`);
    const lock = lockOf(other.name, other.owner, other.expiresAt);
    throw new ConflictError(`locked by ${lock.heldBy}${lock.description ? ` (${lock.description})` : ''}, until ${new Date(lock.expiresTime).toISOString()} unless renewed`);
  }

  /** Gives the lock up if `holder` holds it; nothing otherwise (released already, or expired and taken). */
  async release(name: string, holder: string, actor: Actor): Promise<void> {
    const ours = (await this.leases.list(PREFIX + name)).find((lease) => lease.name === PREFIX + name);
    if (!ours) return;
    try {
      const parsed = JSON.parse(ours.owner) as unknown[];
      if (parsed[0] !== holder || parsed[1] !== actor.userEmail) return;
    } catch {
      return;
    }
    await this.leases.release(ours.name, ours.owner);
  }

  async list(): Promise<ApplyLock[]> {
    return (await this.leases.list(PREFIX)).map((lease) => lockOf(lease.name, lease.owner, lease.expiresAt));
  }
}
