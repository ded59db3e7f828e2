import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's whole program (CommonJS, no TypeScript: it runs as is under tsx, vitest and dist).
 * Its own connection runs PASSIVE checkpoints, which never block the console's connection.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or locked: the next tick tries again.
  }
  parentPort.postMessage('done');
});
`;

/**
 * Checkpoints a WAL database on a timer from a worker thread. A checkpoint copies every page written
 * since the last one into the database file and fsyncs twice: run on the console's own thread it
 * stalled every request for tens of milliseconds once a second (bench:reviews, bench:apply). The
 * worker starts at the first tick (short-lived stores never pay for it); should it fail, the
 * checkpoints run in this thread as before.
 */
export function startWalCheckpointer(path: string, intervalMs: number, checkpointHere: () => void): { stop: () => void } {
  let worker: Worker | undefined;
  let failed = false;
  let busy = false;
  const tick = (): void => {
    if (failed) return checkpointHere();
    if (busy) return;
    if (!worker) {
      worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path } });
      worker.unref();
      worker.on('message', () => (busy = false));
      worker.once('error', () => {
        failed = true;
        worker = undefined;
      });
    }
    busy = true;
    worker.postMessage('checkpoint');
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      worker?.postMessage('stop');
      worker = undefined;
    },
  };
}
