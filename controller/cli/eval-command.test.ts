import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createTestConsole } from '../test-support/test-console.js';
import { runCli } from './cli.js';
import { COMMANDS } from './commands.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/config-repo', import.meta.url));

async function flagops(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, cwd: process.cwd(), isTTY: false, signal: new AbortController().signal }, COMMANDS);
  return { code, stdout, stderr };
}

const tmp: string[] = [];
afterAll(() => {
  for (const dir of tmp) rmSync(dir, { recursive: true, force: true });
});

describe('flagops eval from the repository', () => {
  it('prints the value, the deciding rule and the trail', async () => {
    const run = await flagops(['eval', 'new_checkout', '--user', '{"userID":"42","email":"ann@acme.example"}', EXAMPLE]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^gate new_checkout: true\n/);
    expect(run.stdout).toContain('decided by: rule staff');
    expect(run.stdout).toContain('pass: pass_gate "segment:internal_staff" (segment:internal_staff → true)');
  });

  it('answers in JSON, with every rule before the deciding one and why it did not match', async () => {
    const run = await flagops(['eval', 'new_checkout', '--user', '{"userID":"42","email":"bob@other.example"}', '--environment', 'production', '--format', 'json', EXAMPLE]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { value: boolean; reason: string; ruleName: string | null; trail: { ruleName: string; outcome: string; bucket?: number }[] };
    expect(result.reason).toBe('rule');
    expect(result.ruleName).toBe('gradual rollout');
    const outcomes = result.trail.map((t) => [t.ruleName, t.outcome]);
    expect(outcomes).toContainEqual(['staff', 'conditions_failed']);
    expect(outcomes).toContainEqual(['beta testers', 'conditions_failed']);
    const last = result.trail.at(-1);
    expect(last?.bucket).toBeTypeOf('number');
    expect(result.value).toBe((last?.bucket ?? 10000) < 2000);
    // Without the environment, the production-only rollout does not apply.
    const none = JSON.parse((await flagops(['eval', 'new_checkout', '--user', '{"userID":"42","email":"bob@other.example"}', '--format', 'json', EXAMPLE])).stdout) as { value: boolean; reason: string };
    expect(none).toMatchObject({ value: false, reason: 'default' });
  });

  it('evaluates a dynamic config to its object', async () => {
    const run = await flagops(['eval', 'dynamic_configs/pricing', '--user', '{"userID":"7","country":"US"}', '--format', 'json', EXAMPLE]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: 'dynamic_config', id: 'pricing', value: { currency: 'USD', shippingFee: 5.5 }, ruleName: 'us pricing' });
  });

  it('refuses bad input, naming what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['eval', 'new_checkout', EXAMPLE], /--user/],
      [['eval', 'new_checkout', '--user', '{"userID":', EXAMPLE], /--user.*not JSON/],
      [['eval', 'new_checkout', '--user', '{"userId":"42"}', EXAMPLE], /--user/],
      [['eval', 'new_checkout', '--user', '{"userID":42}', EXAMPLE], /--user\.userID/],
      [['eval', 'no_such_flag', '--user', '{"userID":"42"}', EXAMPLE], /no_such_flag/],
      [['eval', '--user', '{"userID":"42"}'], /FLAG/],
      [['eval', 'new_checkout', '--user', '{"userID":"42"}', '--format', 'xml', EXAMPLE], /--format/],
    ];
    for (const [args, message] of cases) {
      const run = await flagops(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('names both flags when a gate and a dynamic config share an id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-eval-'));
    tmp.push(dir);
    writeFileSync(join(dir, 'flagops.yaml'), 'console:\n  url: http://127.0.0.1:8080\n');
    mkdirSync(join(dir, 'gates'));
    mkdirSync(join(dir, 'dynamic_configs'));
    writeFileSync(join(dir, 'gates', 'twin.yaml'), 'id: twin\nname: twin\nrules: []\n');
    writeFileSync(join(dir, 'dynamic_configs', 'twin.yaml'), 'id: twin\nname: twin\nrules: []\ndefaultValue: {a: 1}\n');
    const run = await flagops(['eval', 'twin', '--user', '{"userID":"1"}', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('gates/twin');
    expect(run.stderr).toContain('dynamic_configs/twin');
    const config = await flagops(['eval', 'dynamic_configs/twin', '--user', '{"userID":"1"}', '--format', 'json', dir]);
    expect(config.stderr).toBe('');
    expect(JSON.parse(config.stdout)).toMatchObject({ value: { a: 1 }, reason: 'default' });
  });
});

describe('flagops eval --console', () => {
  // The rule's id salts its bucketing: one the file states is kept by the console; without one,
  // the console derives it from the rule's name, as evaluation from the files does.
  it.each([['states its rule id', true], ['states no rule id', false]])('asks the live console and prints the same answer as the files give (a file that %s)', async (_what, withId) => {
    const c = createTestConsole();
    try {
      const made = await c.call('POST', '/console/v1/gates', { id: 'beta', name: 'beta', rules: [{ ...(withId ? { id: 'acme' } : {}), name: 'acme', passPercentage: 50, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }] }] });
      expect(made.statusCode, made.body).toBe(201);
      const url = await c.app.listen({ host: '127.0.0.1', port: 0 });
      const dir = mkdtempSync(join(tmpdir(), 'flagops-eval-'));
      tmp.push(dir);
      writeFileSync(join(dir, 'flagops.yaml'), `console:\n  url: ${url}\n`);
      mkdirSync(join(dir, 'gates'));
      writeFileSync(join(dir, 'gates', 'beta.yaml'), `id: beta\nname: beta\nrules:\n  - ${withId ? 'id: acme\n    ' : ''}name: acme\n    passPercentage: 50\n    conditions:\n      - type: email\n        operator: str_ends_with_any\n        targetValue: ["@acme.example"]\n`);
      for (let i = 0; i < 40; i++) {
        const user = JSON.stringify({ userID: `u${i}`, email: i % 3 === 0 ? 'x@other.example' : 'x@acme.example' });
        const live = await flagops(['eval', 'beta', '--user', user, '--console', url, '--format', 'json'], { FLAGOPS_API_KEY: ADMIN_KEY });
        expect(live.stderr).toBe('');
        const files = await flagops(['eval', 'beta', '--user', user, '--format', 'json', dir]);
        const pick = (text: string) => {
          const r = JSON.parse(text) as { value: unknown; reason: string; ruleID: string; trail: unknown[] };
          return { value: r.value, reason: r.reason, ruleID: r.ruleID, trail: r.trail };
        };
        expect(pick(live.stdout)).toEqual(pick(files.stdout));
      }
      const missing = await flagops(['eval', 'beta', '--user', '{"userID":"1"}', '--console', url]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('FLAGOPS_API_KEY');
    } finally {
      await c.close();
    }
  });
});
