/**
 * `npm start` (`flagops up`) keeps its config repository in `.flagops/config-repo`: a save there must
 * be replanned, although the repository lives under a dot-folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../test-support/spawn-console.js';

const dir = mkdtempSync(join(tmpdir(), 'flagops-up-watch-'));
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

describe('flagops up watches .flagops/config-repo', () => {
  it('prints the changed plan within 2 s of a save', async () => {
    child = spawn(process.execPath, [BIN, 'up', '--port', '0'], { cwd: dir, env: { ...process.env, FLAGOPS_BOOTSTRAP_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    const repo = join(dir, '.flagops', 'config-repo');
    await until(/Outcome: .*the console matches the repository/);
    await until(/Watching \S*[/\\]\.flagops[/\\]config-repo for saves/);

    const file = join(repo, 'gates', 'dark_mode.yaml');
    const mark = out.length;
    const saved = Date.now();
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^description: .*$/m, 'description: Dark mode, edited and saved'));
    const plan = await until(/~ gates\/dark_mode[\s\S]*?Plan: [^\n]*\n/, mark, 10_000);
    const elapsed = Date.now() - saved;
    expect(plan[0]).toMatch(/description: .*Dark mode, edited and saved/);
    expect(plan[0]).toMatch(/Plan: .*1 to update/);
    // The bound the issue sets for a save to show; the wait above allows more so a miss reports its time.
    expect(elapsed).toBeLessThan(2000);

    const code = await new Promise<number | null>((done) => {
      child!.once('exit', done);
      child!.kill('SIGINT');
    });
    expect(code).toBe(0);
  }, 120_000);
});
