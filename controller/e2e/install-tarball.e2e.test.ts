/**
 * A team installs flagops into its own flag repository the way config-repo-template/README.md says:
 * the packed tarball in vendor/, pinned by the template's package.json, installed with
 * `npm ci --ignore-scripts` (what the template's workflow runs), and used through `npx flagops`.
 * Nothing here reaches the network: npm runs with --offline, from the local cache.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshShellEnv } from '../test-support/fresh-shell-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'flagops-install-'));
const flags = join(work, 'flags');

interface PackedFile {
  path: string;
  size: number;
}
interface Packed {
  filename: string;
  size: number;
  files: PackedFile[];
}

/** A fresh shell's environment, where `npx flagops` can only find the installed copy. */
function freshEnv(): NodeJS.ProcessEnv {
  return { ...freshShellEnv(ROOT), NO_COLOR: '1' };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd, env: freshEnv(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      done({ code, stdout, stderr });
    });
  });
}

const git = (args: string[]): Promise<Run> => run('git', ['-c', 'user.name=CI', '-c', 'user.email=ci@acme.example', ...args], flags);

/** The installed CLI said nothing about the native addon: a command that opened SQLite would. */
function expectNoSqlite(result: Run): void {
  if (/better_sqlite3\.node|bindings file/i.test(result.stderr)) {
    throw new Error(`validate/plan opened the console's SQLite store, which an install with --ignore-scripts never compiles:\n${result.stderr}`);
  }
}

let packed: Packed;

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'controller', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first (`npm test` does).');
  // --ignore-scripts: the `prepare` build already ran (npm test builds before the tests).
  const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  packed = (JSON.parse(pack.stdout) as Packed[])[0]!;

  cpSync(join(ROOT, 'config-repo-template'), flags, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(flags, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const spec = manifest.devDependencies['flagops'] ?? '';
  const vendored = /^file:(vendor\/flagops-[^/]+\.tgz)$/.exec(spec)?.[1];
  // The template pins the tarball npm pack writes for this version: a version bump must update it.
  expect(vendored, `config-repo-template/package.json pins ${spec}`).toBe(`vendor/${packed.filename}`);
  mkdirSync(join(flags, 'vendor'));
  copyFileSync(join(work, packed.filename), join(flags, vendored!));
  writeLockfile(vendored!);

  const install = await run('npm', ['ci', '--offline', '--ignore-scripts'], flags);
  if (install.code !== 0) throw new Error(`npm ci --offline failed:\n${install.stderr}`);
  await git(['init', '-q', '-b', 'main']);
  await git(['add', '-A']);
  await git(['commit', '-qm', 'flags from the template']);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The lockfile a team's first `npm install` writes, made offline: the local npm cache holds every
 * tarball the project's own lockfile pins but not the registry metadata npm needs to resolve version
 * ranges, so the runtime dependencies are pinned exactly as flagops's package-lock.json pins them.
 */
function writeLockfile(vendored: string): void {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; bin: Record<string, string>; engines: Record<string, string> };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean }> };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(join(flags, vendored))).digest('base64')}`;
  const packages: Record<string, unknown> = {
    '': { name: 'flags', devDependencies: { flagops: `file:${vendored}` } },
    'node_modules/flagops': { version: pkg.version, resolved: `file:${vendored}`, integrity, dev: true, dependencies: pkg.dependencies, bin: pkg.bin, engines: pkg.engines },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path.startsWith('node_modules/') && !entry.dev && !entry.devOptional) packages[path] = { ...entry, dev: true };
  }
  writeFileSync(join(flags, 'package-lock.json'), `${JSON.stringify({ name: 'flags', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
}

describe('the packed tarball', () => {
  it('holds what the CLI needs at run time, and no tests or sources', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of ['package.json', 'bin/flagops.js', 'dist/controller/main.js', 'schemas/json/gate.schema.json', 'examples/config-repo/flagops.yaml', 'config-repo-template/flagops.yaml', 'config-repo-template/package.json', 'config-repo-template/.github/workflows/flagops.yaml']) {
      expect(paths).toContain(needed);
    }
    expect(paths.filter((p) => p.endsWith('.test.ts') || p.startsWith('controller/') || p.includes('test-support') || p.startsWith('bench/'))).toEqual([]);
    expect(packed.size).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('flagops installed from the tarball into a copy of the template', () => {
  it('is the installed copy, not a link to this checkout, and its native addon was never built', () => {
    const installed = join(flags, 'node_modules', 'flagops');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(realpathSync(join(flags, 'node_modules', '.bin', readlinkSync(join(flags, 'node_modules', '.bin', 'flagops'))))).toBe(realpathSync(join(installed, 'bin', 'flagops.js')));
    expect(existsSync(join(flags, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(false);
  });

  it('validates the template', async () => {
    const result = await run('npx', ['flagops', 'validate', '.'], flags);
    expectNoSqlite(result);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/3 entity files valid \(0 errors/);
  });

  it('plans a branch against main without a console (--base/--head)', async () => {
    await git(['checkout', '-q', '-b', 'raise-rollout']);
    const file = join(flags, 'gates', 'example_gate.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/passPercentage: 10\b/, 'passPercentage: 25'));
    await git(['commit', '-qam', 'raise the rollout']);

    const json = await run('npx', ['flagops', 'plan', '.', '--base', 'main', '--head', 'raise-rollout', '--format', 'json'], flags);
    expectNoSqlite(json);
    expect(json.code, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as { summary: Record<string, number>; changes: Array<{ kind: string; id: string; action: string; fields: Array<{ path: string; old: unknown; new: unknown }> }> };
    expect(plan.summary).toMatchObject({ create: 0, update: 1, delete: 0 });
    expect(plan.changes).toEqual([expect.objectContaining({ kind: 'gates', id: 'example_gate', action: 'update' })]);
    expect(plan.changes[0]!.fields).toContainEqual(expect.objectContaining({ old: 10, new: 25 }));

    const text = await run('npx', ['flagops', 'plan', '.', '--base', 'main', '--head', 'raise-rollout', '--detailed-exitcode'], flags);
    expect(text.code, text.stderr).toBe(2);
    expect(text.stdout).toMatch(/~ gates\/example_gate/);
  });
});
