import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { watchRepo } from '../source/watch-repo.js';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { ConsoleClient } from './console-client.js';
import { createWatchCycle } from './watch-cycle.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/config-repo', import.meta.url));
let c: TestConsole;
let dir: string;
let client: ConsoleClient;

beforeAll(async () => {
  c = createTestConsole();
  client = new ConsoleClient({ baseUrl: await c.app.listen({ port: 0, host: '127.0.0.1' }), apiKey: await c.keyFor('flagops@ci.example.com', 'member') });
  dir = await mkdtemp(join(tmpdir(), 'flagops-watch-'));
  await cp(EXAMPLE, dir, { recursive: true });
});
afterAll(async () => {
  await c.close();
  await rm(dir, { recursive: true, force: true });
});

describe('watch cycle', () => {
  it('prints the whole plan first, then only what changed, errors once, and applies with --apply', async () => {
    const out: string[] = [];
    const cycle = createWatchCycle({ desired: new FsRepoReader(dir), client, print: (t) => out.push(t) });
    const first = await cycle();
    expect(first.plan?.summary.create).toBe(32);
    expect(out.join('')).toContain('+ gates/dark_mode');

    out.length = 0;
    await cycle();
    expect(out.join('')).toMatch(/No new changes since the last plan \(32 pending\)/);

    const path = join(dir, 'gates/dark_mode.yaml');
    const original = await readFile(path, 'utf8');
    await writeFile(path, original.replace(/^description: .*$/m, 'description: changed while watching'));
    out.length = 0;
    await cycle();
    expect(out.join('')).toContain('+ gates/dark_mode');
    expect(out.join('')).not.toContain('gates/new_checkout');

    await writeFile(path, 'id: dark_mode\nname: x\n');
    out.length = 0;
    await cycle();
    await cycle();
    expect(out.join('').match(/does not validate/g)).toHaveLength(1);
    expect(out.join('')).toContain('gates/dark_mode.yaml');

    await writeFile(path, original);
    out.length = 0;
    const approver = new ConsoleClient({ baseUrl: client.baseUrl, apiKey: await c.keyFor('checkout-lead@acme.example', 'member') });
    const applying = createWatchCycle({ desired: new FsRepoReader(dir), client, print: (t) => out.push(t), apply: { approver, sleep: async () => undefined } });
    const result = await applying();
    expect(result.applied?.ok).toBe(true);
    expect((await applying()).applied).toBeUndefined();
  });

  it("prints a console's error with its control characters escaped", async () => {
    const hostile = new ConsoleClient({
      baseUrl: 'http://console.invalid',
      apiKey: 'console-any',
      send: async () => ({ status: 400, text: JSON.stringify({ status: 400, message: 'Bad \u001b]0;owned\u0007', errors: [{ property: 'x\u001b[2J', errorMessage: 'no\u202e' }] }) }),
    });
    const out: string[] = [];
    await createWatchCycle({ desired: new FsRepoReader(dir), client: hostile, print: (t) => out.push(t) })();
    expect(out.join('')).toContain('Bad \\x1b]0;owned\\x07');
    expect(out.join('')).toContain('x\\x1b[2J: no\\u202e');
    expect(out.join('')).not.toContain('\u001b');
  });

  it('watchRepo runs the callback once per burst of saves, debounced', async () => {
    const controller = new AbortController();
    const runs: string[][] = [];
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    const watching = watchRepo(dir, async (paths) => void runs.push(paths), { debounceMs: 100, signal: controller.signal, onReady: ready });
    await isReady;
    await writeFile(join(dir, 'gates/search_v2.yaml'), `${await readFile(join(dir, 'gates/search_v2.yaml'), 'utf8')}\n`);
    await writeFile(join(dir, 'gates/dark_mode.yaml'), `${await readFile(join(dir, 'gates/dark_mode.yaml'), 'utf8')}\n`);
    for (let i = 0; i < 100 && runs.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await watching;
    expect(runs).toHaveLength(1);
    expect(runs[0]!.map((p) => p.split('/').slice(-2).join('/')).sort()).toEqual(['gates/dark_mode.yaml', 'gates/search_v2.yaml']);
  });
});
