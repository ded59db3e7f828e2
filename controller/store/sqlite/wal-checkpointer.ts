import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's whole program (CommonJS, no TypeScript: it runs as is under tsx, vitest and dist).
 * Its own connection runs PASSIVE checkpoints, which never block the console's connection, and
 * answers with the WAL's frames and how many of them the database file now holds.
 */
const WORKER_SOURCE = `
const { closeSync, openSync, readSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
// The WAL header's checkpoint sequence (bytes 12-15), which SQLite counts up each time the WAL starts over.
const header = Buffer.alloc(4);
const walSequence = () => {
  let fd;
  try {
    fd = openSync(workerData.path + '-wal', 'r');
    return readSync(fd, header, 0, 4, 12) === 4 ? header.readUInt32BE(0) : -1;
  } catch {
    return -1;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  let result = { log: 0, checkpointed: 0, sequence: -1 };
  try {
    const row = db.pragma('wal_checkpoint(PASSIVE)')[0];
    if (row && row.busy === 0) result = { log: row.log, checkpointed: row.checkpointed, sequence: walSequence() };
  } catch {
    // Busy or locked: the next tick tries again.
  }
  parentPort.postMessage(result);
});
`;

/**
 * Holding the writes back: resolves once no write transaction is open and none starts, with the
 * function that lets them go again.
 */
export type HoldWrites = () => Promise<() => void>;

export interface WalRestart {
  /** WAL frames past which a checkpoint that could not copy them all is followed by a restart pass. */
  frames: number;
  hold: HoldWrites;
}

interface CheckpointResult {
  log: number;
  checkpointed: number;
  /** The WAL header's checkpoint sequence, which moves each time the WAL starts over (-1: unread). */
  sequence: number;
}

/**
 * Checkpoints a WAL database on a timer from a worker thread. A checkpoint copies every page written
 * since the last one into the database file and fsyncs twice: run on the console's own thread it
 * stalled every request for tens of milliseconds once a second (bench:reviews, bench:apply). The
 * worker starts at the first tick (short-lived stores never pay for it); should it fail, the
 * checkpoints run in this thread as before.
 *
 * The WAL starts over only at a write that finds every frame copied, which writes that never pause
 * never leave time for: it would grow until SQLite's own checkpoint at `wal_autocheckpoint` ran the
 * rest inside a commit, on the console's thread. With `restart`, once a checkpoint leaves more than
 * `restart.frames` frames behind, the writes are held back for one more pass (the frames written
 * since, and the fsync): they wait for it, but the thread keeps serving everything else, and the
 * next write starts the WAL over.
 */
export function startWalCheckpointer(path: string, intervalMs: number, checkpointHere: () => void, restart?: WalRestart, onCheckpoint?: () => void): { stop: () => void } {
  let worker: Worker | undefined;
  let failed = false;
  let busy = false;
  let stopped = false;
  /** Lets the writes go again, while a restart pass holds them. */
  let letGo: (() => void) | undefined;
  const schedule = restart && new RestartSchedule(restart.frames);
  const endRestart = (): void => {
    const go = letGo;
    letGo = undefined;
    go?.();
  };
  const restartPass = async (): Promise<void> => {
    if (!restart) return;
    const go = await restart.hold();
    if (stopped || worker === undefined) return go();
    letGo = go;
    worker.postMessage('checkpoint');
  };
  const onResult = (result: CheckpointResult): void => {
    if (stopped) return;
    onCheckpoint?.();
    if (letGo !== undefined) {
      endRestart();
      busy = false;
      return;
    }
    if (schedule?.due(result.log, result.sequence)) {
      // busy stays set: no tick's checkpoint while the writes are held for this one.
      restartPass().catch(() => {
        endRestart();
        busy = false;
      });
      return;
    }
    busy = false;
  };
  const tick = (): void => {
    if (failed) {
      checkpointHere();
      onCheckpoint?.();
      return;
    }
    if (busy) return;
    if (!worker) {
      worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path } });
      worker.unref();
      worker.on('message', (result: CheckpointResult) => onResult(result));
      worker.once('error', () => {
        failed = true;
        worker = undefined;
        endRestart();
        busy = false;
      });
    }
    busy = true;
    worker.postMessage('checkpoint');
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
      endRestart();
      worker?.postMessage('stop');
      worker = undefined;
    },
  };
}

/**
 * When a checkpoint should be followed by a restart pass, from the WAL's frames it counted: those
 * written since the WAL last started over (a pass copies them all, but writes that land meanwhile
 * keep it from starting over). Past `frames`, a pass; should the WAL still not start over (a reader
 * on another connection needs its frames), the next pass waits until the frames have doubled, so
 * writes are not held back every second for nothing. Whether it started over is read from the WAL
 * header's checkpoint sequence, not from the frames: under fast writes the WAL holds more than
 * `frames` again by the next checkpoint, and a schedule that took that for "not started over"
 * doubled its bound at every pass, letting the WAL grow pass after pass.
 */
export class RestartSchedule {
  private next: number;
  private sequence = -1;

  constructor(private readonly frames: number) {
    this.next = frames;
  }

  /**
   * Whether a checkpoint that counted `log` frames, with the WAL header's checkpoint `sequence`
   * (-1 when it could not be read), should be followed by a restart pass.
   */
  due(log: number, sequence = -1): boolean {
    const startedOver = sequence !== -1 && this.sequence !== -1 && sequence !== this.sequence;
    if (sequence !== -1) this.sequence = sequence;
    if (log <= this.frames || startedOver) this.next = this.frames;
    if (log <= this.next) return false;
    this.next = 2 * log;
    return true;
  }
}
