import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { applyCommand } from './apply-command.js';
import type { CliIO, ParsedArgs } from './command.js';

let c: TestConsole;
let url: string;
let env: Record<string, string>;
let dir: string;
let n = 0;
const dirs: string[] = [];

beforeAll(async () => {
  c = createTestConsole();
  url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  env = { FLAGOPS_API_KEY: await c.keyFor('flagops@ci.example.com', 'member'), APPROVER: await c.keyFor('lead@example.com', 'member') };
});
afterAll(async () => {
  await c.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// A fresh committed repository with one new gate per test.
beforeEach(async () => {
  n++;
  dir = mkdtempSync(join(tmpdir(), 'flagops-apply-confirm-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'gates'));
  writeFileSync(join(dir, 'flagops.yaml'), `console: { url: ${url} }\napply: { approverKeyEnv: APPROVER }\n`);
  writeFileSync(join(dir, 'gates', `gate_${n}.yaml`), `id: gate_${n}\nname: gate_${n}\n`);
  await simpleGit(dir).init(['-b', 'main']).addConfig('user.email', 'dev@example.com').addConfig('user.name', 'dev');
  await simpleGit(dir).add(['-A']).commit('flags');
});

function io(options: { isTTY: boolean; answer?: string; env?: Record<string, string> }): CliIO & { out: string; err: string; asked: string[] } {
  const result = {
    out: '',
    err: '',
    asked: [] as string[],
    env: { ...env, ...options.env },
    cwd: dir,
    isTTY: options.isTTY,
    signal: new AbortController().signal,
    stdout: (t: string) => void (result.out += t),
    stderr: (t: string) => void (result.err += t),
    prompt: async (question: string) => {
      result.asked.push(question);
      return options.answer;
    },
  };
  return result;
}

/** What the CLI's parser would give: the command's defaults, and the flags. */
const args = (...extra: string[]): ParsedArgs => ({ values: { format: 'text', 'wait-timeout': '1800', 'lock-timeout': '600', ...Object.fromEntries(extra.map((flag) => [flag, true])) }, positionals: [dir] });
const gateExists = async (): Promise<boolean> => (await c.call('GET', `/console/v1/gates/gate_${n}`)).statusCode === 200;

describe('flagops apply: confirmation', () => {
  it("asks on a terminal and applies nothing unless the answer is 'yes'", async () => {
    const out = io({ isTTY: true, answer: 'y' });
    expect(await applyCommand.run(args(), out)).toBe(1);
    expect(out.asked).toEqual(["\nApply these 1 change? Only 'yes' will be accepted: "]);
    expect(out.out).toContain('Apply cancelled: nothing was applied');
    expect(await gateExists()).toBe(false);
  });

  it("applies after 'yes', in colour on a terminal", async () => {
    const out = io({ isTTY: true, answer: 'yes' });
    expect(await applyCommand.run(args(), out)).toBe(0);
    expect(out.out).toContain('\u001b[32m+\u001b[0m');
    expect(out.out).toMatch(/1 committed; the console now matches the repository\. Took \d+\.\d s\./);
    expect(await gateExists()).toBe(true);
  });

  it('refuses without a terminal unless --auto-approve, before touching the console', async () => {
    const out = io({ isTTY: false });
    await expect(applyCommand.run(args(), out)).rejects.toMatchObject({ errors: [{ property: '--auto-approve', errorMessage: expect.stringMatching(/pass --auto-approve to apply without asking/) }] });
    expect(out.asked).toEqual([]);
    expect(await gateExists()).toBe(false);
    const auto = io({ isTTY: false });
    expect(await applyCommand.run(args('auto-approve'), auto)).toBe(0);
    expect(auto.asked).toEqual([]);
    expect(await gateExists()).toBe(true);
  });

  it('refuses when the terminal gives no answer (stdin not a terminal), and prints no colour with NO_COLOR', async () => {
    const out = io({ isTTY: true, env: { NO_COLOR: '1' } });
    await expect(applyCommand.run(args(), out)).rejects.toMatchObject({ errors: [{ property: '--auto-approve' }] });
    expect(out.out).not.toContain('\u001b[');
    expect(await gateExists()).toBe(false);
  });
});
