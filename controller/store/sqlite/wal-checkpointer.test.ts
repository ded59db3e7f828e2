import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startWalCheckpointer } from './wal-checkpointer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('startWalCheckpointer', () => {
  it('checkpoints from its worker thread, never on the caller\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-checkpointer-'));
    dirs.push(dir);
    const path = join(dir, 'x.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (v TEXT)');
    const before = statSync(path).size;
    const insert = db.prepare('INSERT INTO t VALUES (?)');
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
