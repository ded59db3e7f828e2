/**
 * `flagops up` (what `npm start` runs) as a new user sees it: prepares a git repository of the example
 * flags, applies it through reviews, the webhook and the bridge, replans each save in that repository
 * (it lives under the dot-folder `.flagops/`), then applies each new commit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../test-support/spawn-console.js';

const dir = mkdtempSync(join(tmpdir(), 'flagops-up-'));
let child: ChildProcess | undefined;
let out = '';

async function until(pattern: RegExp, from = 0, ms = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = pattern.exec(out.slice(from));
    if (match) return match;
    if (Date.now() > deadline || child?.exitCode !== null) throw new Error(`no ${pattern} within ${ms} ms in:\n${out.slice(from)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('flagops up', () => {
  it('runs the loop on embedded defaults and keeps reconciling until SIGINT', async () => {
    child = spawn(process.execPath, [BIN, 'up', '--port', '0'], { cwd: dir, env: { ...process.env, FLAGOPS_BOOTSTRAP_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    const url = (await until(/flagops console listening on (\S+)/))[1]!;
    await until(/flagops bridge listening on/);
    expect((await until(/Outcome: (.*)/))[1]).toMatch(/the console matches the repository/);
    const key = (await until(/admin key: (console-\S+);/))[1]!;
    await until(/Ctrl-C stops/);

    const gate = async (): Promise<Record<string, unknown>> =>
      ((await (await fetch(`${url}/console/v1/gates/dark_mode`, { headers: { 'SERVICE-API-KEY': key } })).json()) as { data: Record<string, unknown> }).data;
    expect(gate).toBeDefined();
    const repo = join(dir, '.flagops', 'config-repo');
    await until(/Watching \S*[/\\]\.flagops[/\\]config-repo for saves/);
    const file = join(repo, 'gates', 'dark_mode.yaml');
    const saving = out.length;
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^description: .*$/m, 'description: Dark mode, shipped from a commit'));
    // That the save shows, not how fast: no wall-clock bounds in tests.
    const plan = await until(/~ gates\/dark_mode[\s\S]*?Plan: [^\n]*\n/, saving, 10_000);
    expect(plan[0]).toMatch(/description: .*Dark mode, shipped from a commit/);
    expect(plan[0]).toMatch(/Plan: .*1 to update/);

    const mark = out.length;
    await simpleGit(repo).add(['-A']).commit('describe dark mode');
    await until(/== apply \(new commit [0-9a-f]{12}\)/, mark);
    expect((await until(/Outcome: (.*)/, mark))[1]).toMatch(/1 committed; the console matches the repository/);
    expect((await gate())['description']).toBe('Dark mode, shipped from a commit');

    const code = await new Promise<number | null>((done) => {
      child!.once('exit', done);
      child!.kill('SIGINT');
    });
    expect(code).toBe(0);
  }, 120_000);
});
