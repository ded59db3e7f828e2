/**
 * `flagops validate` (the compiled CLI, `npm run build` first) on repositories built to hurt it: a link
 * to /dev/zero, a FIFO, a link to /etc/passwd, a 60 MB file. Memory is measured on the
 * child itself: a preloaded hook writes its peak RSS when it exits.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../test-support/spawn-console.js';

let root: string;
let preload: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'flagops-hostile-e2e-'));
  preload = join(root, 'peak-rss.cjs');
  // ru_maxrss of the CLI process, in KiB, written as it exits (normally or by process.exit); and,
  // for the SIGTERM test, a file once the CLI listens for SIGTERM (a signal before that kills it).
  writeFileSync(
    preload,
    [
      "const fs = require('node:fs');",
      "process.on('exit', () => fs.writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)));",
      'const once = process.once.bind(process);',
      "process.once = (event, listener) => { const r = once(event, listener); if (event === 'SIGTERM' && process.env.SIGTERM_READY_FILE) fs.writeFileSync(process.env.SIGTERM_READY_FILE, ''); return r; };",
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  peakRssKiB: number | undefined;
}

function validate(dir: string, options: { signalWhenListening?: boolean; args?: string[] } = {}): Promise<Run> {
  const rssFile = join(root, `rss-${Math.random().toString(36).slice(2)}`);
  const readyFile = `${rssFile}-sigterm`;
  const child = spawn(process.execPath, ['-r', preload, BIN, 'validate', dir, ...(options.args ?? [])], { env: { ...process.env, PEAK_RSS_FILE: rssFile, SIGTERM_READY_FILE: readyFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  if (options.signalWhenListening) {
    const signal = setInterval(() => {
      if (!existsSync(readyFile)) return;
      clearInterval(signal);
      child.kill('SIGTERM');
    }, 5);
    child.once('close', () => clearInterval(signal));
  }
  // A safety net only: the assertions below are what fail a hung run.
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((done) =>
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      let peakRssKiB: number | undefined;
      try {
        peakRssKiB = Number(readFileSync(rssFile, 'utf8'));
      } catch {
        peakRssKiB = undefined;
      }
      done({ code, signal, stdout, stderr, peakRssKiB });
    }),
  );
}

describe('flagops validate on a hostile repository', () => {
  it('reports a link to /dev/zero, a FIFO, a link to /etc/passwd and a 60 MB file, one error each, within 300 MB', async () => {
    const dir = join(root, 'hostile');
    mkdirSync(join(dir, 'gates'), { recursive: true });
    writeFileSync(join(dir, 'flagops.yaml'), '');
    writeFileSync(join(dir, 'gates/fine_gate.yaml'), 'id: fine_gate\nname: fine_gate\n');
    symlinkSync('/dev/zero', join(dir, 'gates/zero.yaml'));
    execFileSync('mkfifo', [join(dir, 'gates/fifo.yaml')]);
    symlinkSync('/etc/passwd', join(dir, 'gates/passwd.yaml'));
    writeFileSync(join(dir, 'gates/huge.yaml'), '');
    truncateSync(join(dir, 'gates/huge.yaml'), 60 * 1024 * 1024);

    const run = await validate(dir);
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.trim().split('\n');
    const errors = lines.slice(0, -1);
    expect(errors).toEqual([
      'gates/fifo.yaml:1:1 is a FIFO (named pipe), not a regular file; not read',
      'gates/huge.yaml:1:1 is 60 MiB, over the limit of 1 MiB per file (limits.maxFileBytes in flagops.yaml or --max-file-size); not read',
      'gates/passwd.yaml:1:1 is a symbolic link to a location outside the repository; not read',
      'gates/zero.yaml:1:1 is a symbolic link to a location outside the repository; not read',
    ]);
    expect(run.stdout).not.toContain('root:');
    expect(lines.at(-1)).toMatch(/^flagops validate: 4 errors, 0 warnings in 4 files/);
    // Memory, not time: a run held by the FIFO or reading /dev/zero is killed by the guard (code
    // null, no such output); the defect read 16 GB.
    expect(run.peakRssKiB).toBeGreaterThan(0);
    expect(run.peakRssKiB).toBeLessThan(300 * 1024);
  });

  it('fails a folder that is no config repository, and accepts it with --allow-empty', async () => {
    const dir = join(root, 'not-a-repo');
    mkdirSync(dir);
    writeFileSync(join(dir, 'README.md'), '# hello\n');
    const run = await validate(dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/is not a config repository: it has no flagops\.yaml/);
    expect((await validate(dir, { args: ['--allow-empty'] })).code).toBe(0);
    const bad = await validate(dir, { args: ['--max-file-size', 'lots'] });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--max-file-size: must be a size/);
  });

  it('stops a long validate on SIGTERM', async () => {
    const dir = join(root, 'large');
    mkdirSync(join(dir, 'gates'), { recursive: true });
    writeFileSync(join(dir, 'flagops.yaml'), '');
    for (let i = 0; i < 10_000; i++) {
      writeFileSync(join(dir, `gates/g_${i}.yaml`), `id: g_${i}\nname: g_${i}\ndescription: one of many\nrules:\n  - name: ramp\n    passPercentage: 10\n    conditions: [{ type: public }]\n`);
    }
    const run = await validate(dir, { signalWhenListening: true });
    // Signalled mid-run (ten thousand files take over a second), it stops instead of finishing.
    expect(run.stdout).not.toMatch(/entity files valid/);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Interrupted: stopped reading the config repository/);
  });
});
