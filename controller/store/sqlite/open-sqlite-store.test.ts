/**
 * `--durability`: what SQLite is told to sync, read back from the connection itself, from the store
 * and through the console's wiring; and serve refusing a mode it does not know. The WAL under writes
 * that never pause: the checkpointer holds them back through the store's own gate.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveCommand } from '../../cli/serve-command.js';
import { createConsole } from '../../compose.js';
import { InputError } from '../../errors.js';
import { openSqliteStore, type SqliteStore } from './open-sqlite-store.js';

let dir: string;
let counter = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-durability-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const newDb = (): string => join(dir, `db-${++counter}`, 'console.db');

describe('durability', () => {
  it.each([
    [undefined, 'NORMAL'],
    ['normal', 'NORMAL'],
    ['full', 'FULL'],
  ] as const)('%s → PRAGMA synchronous = %s, in WAL mode', async (durability, pragma) => {
    const store = openSqliteStore(newDb(), undefined, durability === undefined ? {} : { durability });
    try {
      expect(store.synchronous()).toBe(pragma);
      await store.entities.insert({ kind: 'gate', id: 'g1', version: 1, data: { id: 'g1' } });
      expect((await store.entities.get('gate', 'g1'))?.version).toBe(1);
    } finally {
      store.close();
    }
  });

  it("reaches the console's store from createConsole", async () => {
    for (const [durability, pragma] of [['full', 'FULL'], ['normal', 'NORMAL']] as const) {
      const instance = createConsole({ db: newDb(), bootstrapKey: 'console-durability-test', durability });
      try {
        expect((instance.store as SqliteStore).synchronous()).toBe(pragma);
      } finally {
        await instance.close();
      }
    }
  });

  it('serve refuses an unknown mode, naming --durability, before opening anything', async () => {
    const db = newDb();
    const io = { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: dir, isTTY: false, signal: new AbortController().signal };
    const run = serveCommand.run({ values: { durability: 'paranoid', db, port: '0', 'webhook-timeout': '1000', 'rate-limit': '0' }, positionals: [] }, io);
    await expect(run).rejects.toBeInstanceOf(InputError);
    await expect(run).rejects.toMatchObject({ errors: [{ property: '--durability', errorMessage: 'must be one of normal, full' }] });
    expect(existsSync(db)).toBe(false);
  });
});

describe('WAL restart passes', () => {
  /** Transactions one after another, each answered before the next starts; the WAL file's size after. */
  async function walAfterWrites(restartFrames: number): Promise<number> {
    const db = newDb();
    let firstCheckpoint: () => void = () => undefined;
    const checkpointing = new Promise<void>((resolve) => (firstCheckpoint = resolve));
    const store = openSqliteStore(db, undefined, { checkpointIntervalMs: 5, restartFrames, onCheckpoint: () => firstCheckpoint() });
    try {
      // The checkpointer's worker starts at the first tick and takes a while to load: wait for its first pass.
      await store.settings.set('reviews', { is_config_review_required: false });
      await checkpointing;
      const bulk = 'x'.repeat(3000);
      for (let i = 0; i < 3000; i++) {
        await store.transaction((tx) => tx.entities.insert({ kind: 'gate', id: `g${i}`, version: 1, data: { id: `g${i}`, description: bulk } }));
      }
      expect((await store.entities.list('gate')).length).toBe(3000);
      return statSync(`${db}-wal`).size;
    } finally {
      await store.close();
    }
  }

  it('keeps the WAL from growing under writes that never pause, holding them back through the gate', async () => {
    const without = await walAfterWrites(Number.MAX_SAFE_INTEGER);
    const withPasses = await walAfterWrites(100);
    expect(without).toBeGreaterThan(3000 * 4096);
    expect(withPasses).toBeLessThan(without / 2);
  });
});

describe('readiness (ping)', () => {
  it('fails while a write cannot commit (the database is full), naming why, and passes where writes commit', async () => {
    const path = newDb();
    await openSqliteStore(path).close();
    const check = new Database(path);
    const pages = check.pragma('page_count', { simple: true }) as number;
    check.close();
    // As on a full disk: the file may not grow past what it holds now plus a few pages.
    const full = openSqliteStore(path, undefined, { maxPageCount: pages + 8 });
    try {
      await full.ping();
      let refused: unknown;
      for (let i = 0; i < 100 && refused === undefined; i++) {
        await full.entities.insert({ kind: 'gate', id: `g${i}`, version: 1, data: { id: `g${i}`, description: 'x'.repeat(3000) } }).catch((error: unknown) => (refused = error));
      }
      expect(String(refused)).toMatch(/full/);
      // Reads still answer; readiness does not.
      expect((await full.entities.get('gate', 'g0'))?.id).toBe('g0');
      await expect(full.ping()).rejects.toThrow(/full/);
    } finally {
      await full.close();
    }
    const roomy = openSqliteStore(path);
    try {
      await roomy.ping();
      await roomy.ping();
    } finally {
      await roomy.close();
    }
  });
});
