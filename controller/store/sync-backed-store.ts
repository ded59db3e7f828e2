import type { StoreRepos } from './ports.js';

/** A port's synchronous twin: what an in-process adapter (SQLite, the fake) implements inside. */
export type Sync<T> = { [K in keyof T]: NonNullable<T[K]> extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K] };

export type SyncRepos = { [K in keyof StoreRepos]: Sync<StoreRepos[K]> };

/**
 * One transaction at a time on a single connection. While one is open, calls made outside it wait
 * for its end, so they never read its uncommitted writes (or write into it).
 */
export class TransactionGate {
  /** True from the start of a transaction to its end. */
  busy = false;
  private readonly queue: (() => void)[] = [];
  private waiters: (() => void)[] = [];

  /** Resolves when the caller holds the gate. */
  acquire(): Promise<void> | undefined {
    if (!this.busy) {
      this.busy = true;
      return undefined;
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  release(): void {
    // Calls that waited outside a transaction run first: under a stream of writes they would
    // otherwise wait behind every queued transaction.
    if (this.waiters.length > 0) {
      const waiters = this.waiters;
      this.waiters = [];
      this.busy = false;
      for (const wake of waiters) wake();
      // They ran synchronously in their callbacks (microtasks queued before the next acquire's).
      this.busy = this.queue.length > 0;
      if (this.busy) queueMicrotask(() => this.handOver());
      return;
    }
    this.handOver();
  }

  private handOver(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy = false;
  }

  /** Resolves when no transaction is open. */
  idle(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

const METHODS_CACHE = new WeakMap<object, string[]>();

/** Method names of an object: its own function properties, or its class's. */
function methodsOf(target: object): string[] {
  const proto = Object.getPrototypeOf(target) as object;
  const cached = METHODS_CACHE.get(proto === Object.prototype ? target : proto);
  if (cached) return cached;
  const names = new Set<string>();
  for (const name of Object.keys(target)) if (typeof (target as Record<string, unknown>)[name] === 'function') names.add(name);
  if (proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (proto as Record<string, unknown>)[name] === 'function') names.add(name);
    }
    METHODS_CACHE.set(proto, [...names]);
  }
  return [...names];
}

/**
 * The asynchronous face of a synchronous repository. With a gate (calls outside transactions), a
 * call waits while a transaction is open; otherwise it runs at once and answers a settled promise.
 * `onCall` runs before every call reaches the repository.
 */
export function asyncRepo<T extends object>(target: T, gate?: TransactionGate, onCall?: () => void): Record<string, (...args: unknown[]) => Promise<unknown>> {
  const out: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const name of methodsOf(target)) {
    const fn = (target as Record<string, (...args: unknown[]) => unknown>)[name]!;
    const run = onCall
      ? (args: unknown[]): unknown => {
          onCall();
          return fn.apply(target, args);
        }
      : (args: unknown[]): unknown => fn.apply(target, args);
    out[name] = gate
      ? (...args) => {
          if (gate.busy) return gate.idle().then(() => run(args));
          try {
            return Promise.resolve(run(args));
          } catch (error) {
            return Promise.reject(error as Error);
          }
        }
      : (...args) => {
          try {
            return Promise.resolve(run(args));
          } catch (error) {
            return Promise.reject(error as Error);
          }
        };
  }
  return out;
}

/** Every repository of a synchronous adapter, as the ports. */
export function asyncRepos(repos: SyncRepos, gate?: TransactionGate, onCall?: () => void): StoreRepos {
  return {
    entities: asyncRepo(repos.entities, gate, onCall) as unknown as StoreRepos['entities'],
    audit: asyncRepo(repos.audit, gate, onCall) as unknown as StoreRepos['audit'],
    auth: asyncRepo(repos.auth, gate, onCall) as unknown as StoreRepos['auth'],
    roles: asyncRepo(repos.roles, gate, onCall) as unknown as StoreRepos['roles'],
    settings: asyncRepo(repos.settings, gate, onCall) as unknown as StoreRepos['settings'],
    reviews: asyncRepo(repos.reviews, gate, onCall) as unknown as StoreRepos['reviews'],
  };
}

/**
 * A transaction over a synchronous connection: one at a time (others queue), begun and ended around
 * the caller's asynchronous function, which sees the transaction's own repositories.
 */
export function syncTransaction(gate: TransactionGate, tx: StoreRepos, hooks: { begin(): void; commit(): void; rollback(): void }) {
  return async <T>(fn: (repos: StoreRepos) => Promise<T>): Promise<T> => {
    const wait = gate.acquire();
    if (wait) await wait;
    try {
      hooks.begin();
      let result: T;
      try {
        result = await fn(tx);
      } catch (error) {
        hooks.rollback();
        throw error;
      }
      hooks.commit();
      return result;
    } finally {
      gate.release();
    }
  };
}
