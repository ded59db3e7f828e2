/**
 * Two `flagops apply` runs of one repository never interleave: the console's apply lock makes the
 * second wait (with a progress line) and then plan afresh, or, with --lock-timeout 0, fail at once
 * naming the holder. The lock is listed while held, shown by `flagops status`, and released on exit
 * and on Ctrl-C. Real processes: a temporary git repository, `flagops serve`, the compiled CLI.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGitRepo } from '../test-support/git-repo.js';
import { spawnConsole, startBuiltCli, type SpawnedConsole, type StartedCli } from '../test-support/spawn-console.js';

let dir: string;
let repo: string;
let console_: SpawnedConsole;
const keys: Record<string, string> = {};

function start(args: string[], env: Record<string, string | undefined> = {}): StartedCli {
  return startBuiltCli(args, { cwd: dir, env: { NO_COLOR: '', FLAGOPS_API_KEY: keys['submitter']!, FLAGOPS_APPROVER_KEY: keys['approver']!, ...env } });
}
const apply = (...extra: string[]): StartedCli => start(['apply', repo, '--console', console_.url, '--auto-approve', '--approver-key-env', 'FLAGOPS_APPROVER_KEY', ...extra]);

async function api(method: string, path: string, body?: unknown, key = console_.key): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${console_.url}${path}`, { method, headers: { 'SERVICE-API-KEY': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
const locks = async (): Promise<Record<string, unknown>[]> => (await api('GET', '/console/v1/apply_locks')).json['data'] as Record<string, unknown>[];

async function until(what: string, probe: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-apply-lock-'));
  console_ = await spawnConsole({ db: join(dir, 'console.db'), checkResponses: true });
  for (const [name, email] of [['submitter', 'flagops@ci.example.com'], ['approver', 'lead@example.com']] as const) {
    const res = await api('POST', '/console/v1/keys', { description: name, userEmail: email, role: 'member' });
    keys[name] = String((res.json['data'] as Record<string, unknown>)['key']);
  }
}, 60_000);
afterAll(async () => {
  await console_?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let round = 0;
beforeEach(async () => {
  round++;
  repo = join(dir, `repo${round}`);
  const files: Record<string, string> = { 'flagops.yaml': 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\n' };
  for (let i = 0; i < 6; i++) files[`gates/gate_${round}_${i}.yaml`] = `id: gate_${round}_${i}\nname: gate ${round} ${i}\n`;
  files[`segments/seg_${round}.yaml`] = `id: seg_${round}\nname: seg ${round}\ntype: id_list\nids: [a, b]\n`;
  await createGitRepo(repo, files);
});

describe('flagops apply: the apply lock', () => {
  it('two applies started together both exit 0, never with per-entity failures: one applies, the other finds nothing left', async () => {
    const [a, b] = await Promise.all([apply().done, apply().done]);
    expect([a.code, b.code], `${a.stderr}\n----\n${b.stderr}`).toEqual([0, 0]);
    for (const r of [a, b]) expect(r.stdout + r.stderr).not.toMatch(/failed|already exists|cannot be committed|changes nothing/);
    expect([a, b].filter((r) => /nothing to do; the console now matches the repository/.test(r.stdout))).toHaveLength(1);
    expect(await locks()).toEqual([]);
  }, 90_000);

  it('a second apply waits for the first with a progress line, then plans afresh', async () => {
    // No approver key: the first apply's reviews wait for a person, and it holds the lock meanwhile.
    const first = start(['apply', repo, '--console', console_.url, '--auto-approve'], { FLAGOPS_APPROVER_KEY: undefined });
    await until('the first apply waiting for approvals', () => /waits for approval/.test(first.stderr()) || first.child.exitCode !== null);
    const second = apply();
    await until('the second apply waiting for the lock', () => /waiting for the apply lock/.test(second.stderr()) || second.child.exitCode !== null);
    expect(second.stderr()).toMatch(/waiting for the apply lock on .+@main: locked by flagops@ci\.example\.com \(flagops apply on .+ \(pid \d+\), commit [0-9a-f]{12}, since .+\), until .+ unless renewed \(waited \d+ s of 600 s\)/);
    // A person approves the first apply's reviews as they come: it finishes, and the second goes on.
    await until('the first apply finished', async () => {
      const pending = (await api('GET', '/console/v1/reviews?status=pending&limit=1000')).json['data'] as Record<string, unknown>[];
      for (const review of pending) {
        const folder = review['configType'] === 'segment' ? 'segments' : 'gates';
        await api('PUT', `/console/v1/${folder}/${String(review['configName'])}/reviews/${String(review['reviewID'])}/approve`, {}, keys['approver']);
      }
      return first.child.exitCode !== null;
    }, 40_000);
    await until('both applies finished', () => first.child.exitCode !== null && second.child.exitCode !== null, 40_000).catch((error: Error) => {
      first.child.kill('SIGKILL');
      second.child.kill('SIGKILL');
      throw new Error(`${error.message}:\n${first.stderr()}\n----\n${second.stderr()}`);
    });
    const [a, b] = await Promise.all([first.done, second.done]);
    expect([a.code, b.code], `${a.stderr}\n----\n${b.stderr}`).toEqual([0, 0]);
    expect(b.stdout).toMatch(/nothing to do; the console now matches the repository/);
    expect(await locks()).toEqual([]);
  }, 90_000);

  it('with --lock-timeout 0 a second apply fails at once, naming the holder, and writes nothing', async () => {
    const name = encodeURIComponent(`${repo}@main`);
    const held = await api('PUT', `/console/v1/apply_locks/${name}`, { holder: 'test-holder-0123456789', description: 'another runner', ttlSeconds: 60 }, keys['approver']);
    expect(held.status, JSON.stringify(held.json)).toBe(200);
    const refused = await apply('--lock-timeout', '0').done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Another apply of .+@main is running: locked by lead@example\.com \(another runner\)/);
    expect((await api('GET', `/console/v1/gates/gate_${round}_0`)).status).toBe(404);
    // flagops status shows who holds it.
    const status = await start(['status', repo, '--console', console_.url]).done;
    expect(status.stdout).toMatch(/apply lock: .+@main held by lead@example\.com \(another runner\), expires/);
    await api('DELETE', `/console/v1/apply_locks/${name}`, { holder: 'test-holder-0123456789' }, keys['approver']);
  }, 60_000);

  it('is held while apply runs and released on Ctrl-C', async () => {
    // No approver key: the reviews wait for a person, and apply holds the lock meanwhile.
    const running = start(['apply', repo, '--console', console_.url, '--auto-approve'], { FLAGOPS_APPROVER_KEY: undefined });
    await until('apply waiting for an approval', () => /waits for approval/.test(running.stderr()) || running.child.exitCode !== null);
    expect((await locks()).map((lock) => lock['name'])).toEqual([`${repo}@main`]);
    running.child.kill('SIGINT');
    expect((await running.done).code).toBe(1);
    expect(await locks()).toEqual([]);
  }, 60_000);
});
