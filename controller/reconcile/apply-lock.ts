import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { simpleGit } from 'simple-git';
import { ConflictError } from '../errors.js';
import type { ConsoleClient } from './console-client.js';

/** How long the lock lasts unless renewed; renewed every third of it, so a dead apply's lock is free within this. */
export const APPLY_LOCK_TTL_SECONDS = 30;
/** How often a waiting apply says it still waits. */
const WAIT_REPORT_MS = 10_000;
const RETRY_MS = 1000;

export interface ApplyLockHandle {
  /** Stops renewing and releases the lock (a failure to is left to the lease's expiry). */
  release(): Promise<void>;
}

export interface TakeApplyLockInput {
  /** A client this run's abort signal does not abort: renewals and the release outlive an interruption. */
  client: ConsoleClient;
  name: string;
  description: string;
  /** Longest wait for another apply to finish; 0 fails at once. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called when the lock is found taken, and every few seconds while waiting. */
  onWait?: (holder: string, waitedMs: number) => void;
  ttlSeconds?: number;
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** What `flagops apply` locks: the repository (its origin remote, else its top-level directory) and branch. */
export async function applyLockName(dir: string): Promise<string> {
  try {
    const git = simpleGit(dir);
    if (await git.checkIsRepo()) {
      const remote = (await git.remote(['get-url', 'origin']).catch(() => undefined))?.trim();
      const top = (await git.revparse(['--show-toplevel'])).trim();
      const branch = (await git.revparse(['--abbrev-ref', 'HEAD'])).trim();
      return `${remote || top}@${branch}`;
    }
  } catch {
    // not a usable git repository: the directory alone
  }
  return resolve(dir);
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((done) => {
    const abort = (): void => {
      clearTimeout(timer);
      done();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      done();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });

/** The console's "locked by …" out of its 409 message. */
const holderOf = (error: Error): string => /locked by .*/.exec(error.message)?.[0] ?? error.message;

/**
 * Takes the console's apply lock on `name`, waiting while another apply holds it (up to `timeoutMs`),
 * and renews it until released. Throws a ConflictError "… locked by …" when the wait runs out.
 */
export async function takeApplyLock(input: TakeApplyLockInput): Promise<ApplyLockHandle> {
  const clock = input.clock ?? Date.now;
  const sleep = input.sleep ?? defaultSleep;
  const ttlSeconds = input.ttlSeconds ?? APPLY_LOCK_TTL_SECONDS;
  const holder = randomBytes(16).toString('hex');
  const path = `/console/v1/apply_locks/${encodeURIComponent(input.name)}`;
  const body = { holder, description: input.description.slice(0, 300), ttlSeconds };
  const started = clock();
  let reportedAt: number | undefined;
  for (;;) {
    try {
      await input.client.request('PUT', path, body);
      break;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const waited = clock() - started;
      if (waited >= input.timeoutMs) {
        throw new ConflictError(`Another apply of ${input.name} is running: ${holderOf(error)}. Nothing was applied; run apply again once it has finished${input.timeoutMs === 0 ? ', or give --lock-timeout SECONDS to wait for it' : ''}.`);
      }
      if (reportedAt === undefined || clock() - reportedAt >= WAIT_REPORT_MS) {
        input.onWait?.(holderOf(error), waited);
        reportedAt = clock();
      }
      await sleep(Math.min(RETRY_MS, input.timeoutMs - waited), input.signal);
      if (input.signal?.aborted) throw new ConflictError('Interrupted while waiting for the apply lock: nothing was applied.');
    }
  }
  const renewal = setInterval(() => {
    input.client.request('PUT', path, body).catch(() => undefined);
  }, Math.floor((ttlSeconds * 1000) / 3));
  renewal.unref();
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      await input.client.request('DELETE', path, { holder }).catch(() => undefined);
    },
  };
}

/** Where this apply runs, for whoever finds the lock taken. */
export function applyLockDescription(commit: string | undefined, now: number): string {
  return `flagops apply on ${hostname()} (pid ${process.pid})${commit ? `, commit ${commit.slice(0, 12)}` : ''}, since ${new Date(now).toISOString()}`;
}
