import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RestartSchedule, startWalCheckpointer } from './wal-checkpointer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A WAL database file of one table `t`, which only the checkpointer under test checkpoints. */
function walDatabase(): { path: string; db: Database.Database; insert: Database.Statement } {
  const dir = mkdtempSync(join(tmpdir(), 'flagops-checkpointer-'));
  dirs.push(dir);
  const path = join(dir, 'x.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (v TEXT)');
  return { path, db, insert: db.prepare('INSERT INTO t VALUES (?)') };
}

describe('startWalCheckpointer', () => {
  it('checkpoints from its worker thread, never on the caller\'s', async () => {
    const { path, db, insert } = walDatabase();
    const before = statSync(path).size;
    db.transaction(() => {
      for (let i = 0; i < 100; i++) insert.run('x'.repeat(4000));
    })();
    let here = 0;
    const checkpointer = startWalCheckpointer(path, 20, () => here++);
    try {
      const deadline = Date.now() + 5000;
      while (statSync(path).size < before + 300_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(statSync(path).size).toBeGreaterThan(before + 300_000);
      expect(here).toBe(0);
    } finally {
      checkpointer.stop();
      db.close();
    }
  });
});

describe('RestartSchedule', () => {
  it('calls for a pass past its frames, again only once they have doubled, and anew once the WAL has started over', () => {
    const schedule = new RestartSchedule(200);
    expect(schedule.due(0)).toBe(false);
    expect(schedule.due(200)).toBe(false);
    expect(schedule.due(201)).toBe(true);
    // The WAL did not start over: the frames only grew.
    expect(schedule.due(300)).toBe(false);
    expect(schedule.due(402)).toBe(false);
    expect(schedule.due(403)).toBe(true);
    expect(schedule.due(806)).toBe(false);
    // It started over: back to the first bound.
    expect(schedule.due(50)).toBe(false);
    expect(schedule.due(250)).toBe(true);
  });
  it('starts afresh when the WAL header says the WAL started over, though fast writes already filled it past its frames', () => {
    const schedule = new RestartSchedule(200);
    expect(schedule.due(150, 1)).toBe(false);
    expect(schedule.due(500, 1)).toBe(true);
    // The pass let the WAL start over (sequence 2), and by the next checkpoint it holds 400 frames again.
    expect(schedule.due(400, 2)).toBe(true);
    // Not started over this time (same sequence): wait for twice the frames.
    expect(schedule.due(700, 2)).toBe(false);
    // A checkpoint that could not read the header (-1) is no news of a start over.
    expect(schedule.due(750, -1)).toBe(false);
    expect(schedule.due(801, 2)).toBe(true);
  });
});

describe('startWalCheckpointer restart passes', () => {
  /**
   * Writes that never pause (each its own transaction, a turn of the event loop apart) against a
   * checkpointer every 5 ms; returns the WAL file's size after them and what the holds saw.
   */
  async function writeWithoutPause(restartFrames: number | undefined): Promise<{ walBytes: number; holds: number; writesWhileHeld: number }> {
    const { path, db, insert } = walDatabase();
    let held = false;
    let resume: (() => void) | undefined;
    let holds = 0;
    let writesWhileHeld = 0;
    const hold = async (): Promise<() => void> => {
      holds++;
      held = true;
      return () => {
        held = false;
        resume?.();
      };
    };
    let firstCheckpoint: () => void = () => undefined;
    const checkpointing = new Promise<void>((resolve) => (firstCheckpoint = resolve));
    const checkpointer = startWalCheckpointer(path, 5, () => undefined, restartFrames === undefined ? undefined : { frames: restartFrames, hold }, () => firstCheckpoint());
    try {
      // The worker starts at the first tick and takes a while to load: until then nothing checkpoints.
      insert.run('first');
      await checkpointing;
      for (let i = 0; i < 5000; i++) {
        if (held) await new Promise<void>((resolve) => (resume = resolve));
        insert.run('x'.repeat(3000));
        if (held) writesWhileHeld++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { walBytes: statSync(`${path}-wal`).size, holds, writesWhileHeld };
    } finally {
      checkpointer.stop();
      db.close();
    }
  }

  it('holds the writes back for a pass once the WAL is past its frames, and the WAL starts over', async () => {
    const without = await writeWithoutPause(undefined);
    const withPasses = await writeWithoutPause(200);
    expect(without.holds).toBe(0);
    // 5,000 single-row commits of a 3,000-byte row: a fresh page each and more, ≈ 60 MB of WAL
    // when it never starts over.
    expect(without.walBytes).toBeGreaterThan(5000 * 4096);
    expect(withPasses.holds).toBeGreaterThan(0);
    expect(withPasses.writesWhileHeld).toBe(0);
    // The WAL file keeps the largest size it reached, which depends on how soon a busy machine lets
    // the worker run its first pass; any size well short of every write's frames means it started over.
    expect(withPasses.walBytes).toBeLessThan(without.walBytes * 0.8);
  });
});
