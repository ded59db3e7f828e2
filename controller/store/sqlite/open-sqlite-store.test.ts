/**
 * `--durability`: what SQLite is told to sync, read back from the connection itself, from the store
 * and through the console's wiring; and serve refusing a mode it does not know.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
