/**
 * `flagops plan` / `flagops apply` as a team runs them, over real processes: a temporary git
 * repository, `flagops serve` on a real port, and the compiled CLI (`npm run build` first). Saved plans
 * applied exactly or refused when stale, the confirmation, --target, the working-tree check, and an
 * interrupted apply that leaves no review behind.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnConsole, startBuiltCli, type CliRun, type SpawnedConsole, type StartedCli } from '../test-support/spawn-console.js';
import { createGitRepo } from '../test-support/git-repo.js';

let dir: string;
let repo: string;
let console_: SpawnedConsole;
const keys: Record<string, string> = {};

const FILES: Record<string, string> = {
  'flagops.yaml': 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\n',
  'gates/alpha.yaml': 'id: alpha\nname: alpha\nrules:\n  - name: ramp\n    passPercentage: 10\n    conditions: [{ type: public }]\n',
  'gates/beta.yaml': 'id: beta\nname: beta\n',
  'layers/gamma.yaml': 'id: gamma\nname: gamma\n',
};

type Run = CliRun;

function start(args: string[], env: Record<string, string | undefined> = {}): StartedCli {
  return startBuiltCli(args, { cwd: dir, env: { NO_COLOR: '', FLAGOPS_API_KEY: keys['submitter']!, FLAGOPS_APPROVER_KEY: keys['approver']!, ...env } });
}

const run = (args: string[], env: Record<string, string | undefined> = {}): Promise<Run> => start(args, env).done;
const apply = (...extra: string[]): Promise<Run> => run(['apply', repo, '--console', console_.url, '--approver-key-env', 'FLAGOPS_APPROVER_KEY', ...extra]);

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${console_.url}${path}`, {
    method,
    headers: { 'SERVICE-API-KEY': console_.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const exists = async (path: string): Promise<boolean> => (await api('GET', `/console/v1/${path}`)).status === 200;
const reviews = async (status: string) => ((await api('GET', `/console/v1/reviews?status=${status}&limit=1000`)).json['data'] as Record<string, unknown>[]) ?? [];

async function write(path: string, text: string, commit = true): Promise<void> {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
  if (commit) await simpleGit(repo).add(['-A']).commit(`edit ${path}`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flagops-apply-cli-'));
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

// Each test starts from a fresh repository and a console without these entities.
let round = 0;
beforeEach(async () => {
  round++;
  repo = join(dir, `repo${round}`);
  const ids = { alpha: `alpha${round}`, beta: `beta${round}`, gamma: `gamma${round}` };
  const rename = (text: string): string => text.replace(/\b(alpha|beta|gamma)\b/g, (m) => ids[m as keyof typeof ids]);
  await createGitRepo(repo, Object.fromEntries(Object.entries(FILES).map(([path, text]) => [rename(path), rename(text)])));
});

const id = (name: string): string => `${name}${round}`;

describe('flagops apply: confirmation', () => {
  it('refuses without a terminal unless --auto-approve, and changes nothing', async () => {
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--auto-approve: this is not a terminal, so apply cannot ask for confirmation: pass --auto-approve/);
    expect(await exists(`gates/${id('alpha')}`)).toBe(false);

    const applied = await apply('--auto-approve');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/2 committed, 1 written; the console now matches the repository\. Took \d+\.\d s\./);
    expect(applied.stdout).not.toContain('\u001b[');
    expect(await exists(`gates/${id('alpha')}`)).toBe(true);
  });
});

describe('flagops plan/apply --target', () => {
  it('plans and applies only the targets, saying what it skipped', async () => {
    const plan = await run(['plan', repo, '--console', console_.url, '--target', `gates/${id('beta')}`]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`+ gates/${id('beta')}`);
    expect(plan.stdout).not.toContain(`+ gates/${id('alpha')}`);
    expect(plan.stdout).toContain(`warning: --target: 2 changes outside the targets skipped: create gates/${id('alpha')}, create layers/${id('gamma')}.`);

    const applied = await apply('--auto-approve', '--target', `gates/${id('beta')}`);
    expect(applied.code, applied.stderr).toBe(0);
    expect(await exists(`gates/${id('beta')}`)).toBe(true);
    expect(await exists(`gates/${id('alpha')}`)).toBe(false);
    expect(await exists(`layers/${id('gamma')}`)).toBe(false);

    const typo = await apply('--auto-approve', '--target', 'gates/nope_nope');
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/--target: 'gates\/nope_nope' is neither declared by a file nor present in/);
  });
});

describe('flagops plan --out / apply FILE', () => {
  it('applies exactly the saved plan, without a question', async () => {
    const file = join(dir, `plan${round}.json`);
    const plan = await run(['plan', repo, '--console', console_.url, '--out', file]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toMatch(/Plan [0-9a-f]{12} saved to .*: flagops apply .* applies exactly this plan/);
    const hash = /Plan ([0-9a-f]{12}) saved/.exec(plan.stderr)![1]!;

    const applied = await run(['apply', file, '--approver-key-env', 'FLAGOPS_APPROVER_KEY']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Apply (plan ${hash}): 2 committed, 1 written`);
    const committed = await reviews('committed');
    expect(committed.filter((r) => String(r['description']).includes(`plan ${hash}`))).toHaveLength(2);
    const after = await run(['plan', repo, '--console', console_.url, '--detailed-exitcode']);
    expect(after.code).toBe(0);
  });

  it('refuses a saved plan once the repository moved, naming the file', async () => {
    const file = join(dir, `plan${round}.json`);
    expect((await run(['plan', repo, '--console', console_.url, '--out', file])).code).toBe(0);
    await write(`gates/${id('beta')}.yaml`, `id: ${id('beta')}\nname: ${id('beta')}\ndescription: edited after the plan\n`);
    const applied = await run(['apply', file, '--approver-key-env', 'FLAGOPS_APPROVER_KEY']);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(new RegExp(`Refusing the saved plan [0-9a-f]{12} from .*: the repository moved \\(gates/${id('beta')}\\.yaml changed\\)\\. Nothing was applied`));
    expect(await exists(`gates/${id('alpha')}`)).toBe(false);
  });

  it('refuses a saved plan once the console moved, naming the entity', async () => {
    expect((await apply('--auto-approve', '--target', `gates/${id('beta')}`)).code).toBe(0);
    await write(`gates/${id('beta')}.yaml`, `id: ${id('beta')}\nname: ${id('beta')}\ndescription: from git\n`);
    const file = join(dir, `plan${round}.json`);
    expect((await run(['plan', repo, '--console', console_.url, '--out', file])).code).toBe(0);
    expect((await api('PATCH', `/console/v1/gates/${id('beta')}`, { description: 'by hand' })).status).toBe(200);
    const applied = await run(['apply', file, '--approver-key-env', 'FLAGOPS_APPROVER_KEY']);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(new RegExp(`the console moved \\(gates/${id('beta')} version \\d+ → \\d+\\)`));
    expect(await exists(`gates/${id('alpha')}`)).toBe(false);
  });
});

describe('flagops apply: the working tree', () => {
  it('refuses uncommitted config changes unless --allow-dirty', async () => {
    await write(`gates/${id('beta')}.yaml`, `id: ${id('beta')}\nname: ${id('beta')}\ndescription: not committed\n`, false);
    const refused = await apply('--auto-approve');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`Refusing to apply: uncommitted changes to config files \\(gates/${id('beta')}\\.yaml\\).*Or pass --allow-dirty`));
    expect(await exists(`gates/${id('alpha')}`)).toBe(false);
    const allowed = await apply('--auto-approve', '--allow-dirty');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toMatch(/warning: uncommitted changes to config files/);
  });
});

describe('flagops apply: interrupted', () => {
  it('cancels its pending reviews on SIGINT, leaving none behind', async () => {
    // No approver key: the gate reviews wait for a person, as they would in the console.
    const running = start(['apply', repo, '--console', console_.url, '--auto-approve'], { FLAGOPS_APPROVER_KEY: undefined });
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (/waiting: gates\/\S+ review \S+ waits for approval/.test(running.stderr())) {
          clearInterval(timer);
          resolve();
        } else if (running.child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`apply exited early: ${running.stderr()}`));
        }
      }, 20);
    });
    expect((await reviews('pending')).length).toBeGreaterThan(0);
    running.child.kill('SIGINT');
    const result = await running.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Interrupted: apply stopped before finishing; canceled its open reviews? /);
    expect(await reviews('pending,approved,pending_webhook_validation,approved_webhook_validation,validation_timed_out')).toEqual([]);
  });
});
