/**
 * What the built CLI (dist/, `npm run build` first) loads: every module a run resolves is recorded by a
 * module resolve hook, so the test sees the real import graph, not a guess from the sources.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../test-support/spawn-console.js';

const TEMPLATE = new URL('../../config-repo-template', import.meta.url);
let dir: string;
let repo: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-startup-'));
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.FLAGOPS_TEST_LOADED, result.url + '\\n');
  return result;
}
`,
  );
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  repo = join(dir, 'repo');
  cpSync(TEMPLATE, repo, { recursive: true });
  await simpleGit(repo).init(['-b', 'main']).addConfig('user.email', 'dev@example.com').addConfig('user.name', 'dev').add(['-A']).commit('template');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The packages (node_modules/<name>) a CLI run loads, after checking its exit code. */
function packagesLoadedBy(args: string[], exitCodes: readonly number[] = [0]): string[] {
  const log = join(dir, `loaded-${args[0] ?? 'none'}-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, BIN, ...args], {
    env: { ...process.env, FLAGOPS_TEST_LOADED: log, FLAGOPS_API_KEY: '' },
    encoding: 'utf8',
  });
  expect(exitCodes, run.stderr).toContain(run.status);
  const urls = readFileSync(log, 'utf8').split('\n');
  expect(urls.some((u) => u.endsWith('/dist/controller/main.js'))).toBe(true);
  return [...new Set(urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter((p): p is string => p !== undefined))].sort();
}

const CONSOLE_SIDE = ['fastify', 'better-sqlite3', 'pino', 'chokidar'];

describe('startup loads only what the command uses', () => {
  it('the recorder sees the console where it is used (flagops serve --help)', () => {
    const loaded = packagesLoadedBy(['serve', '--help']);
    expect(loaded).toContain('fastify');
    expect(loaded).toContain('better-sqlite3');
  });

  it('flagops --help loads no package at all', () => {
    expect(packagesLoadedBy(['--help'])).toEqual([]);
  });

  it('flagops --version loads no package at all', () => {
    expect(packagesLoadedBy(['--version'])).toEqual([]);
  });

  it('flagops validate loads neither the console (fastify, better-sqlite3) nor git or the watcher', () => {
    const loaded = packagesLoadedBy(['validate', repo]);
    expect(loaded).toContain('yaml');
    for (const heavy of [...CONSOLE_SIDE, 'simple-git']) expect(loaded).not.toContain(heavy);
  });

  it('flagops plan --base without a console loads git but not the console', () => {
    const loaded = packagesLoadedBy(['plan', repo, '--base', 'HEAD']);
    expect(loaded).toContain('simple-git');
    for (const heavy of CONSOLE_SIDE) expect(loaded).not.toContain(heavy);
  });

  it('flagops fmt --check loads no console either', () => {
    const loaded = packagesLoadedBy(['fmt', repo, '--check'], [0, 1]);
    expect(loaded).toContain('yaml');
    for (const heavy of [...CONSOLE_SIDE, 'simple-git']) expect(loaded).not.toContain(heavy);
  });
});
