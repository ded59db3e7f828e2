/**
 * The command line's own errors, in flagops' words: unknown options with the closest real one, a
 * console URL without a scheme, a key variable that is empty or rejected, and --version.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createTestConsole, type TestConsole } from '../test-support/test-console.js';
import { runCli } from './cli.js';
import { COMMANDS, isLazy, loadCommand } from './commands.js';
import { escapeControl } from '../core/escape-control.js';

const TEMPLATE = fileURLToPath(new URL('../../config-repo-template', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

async function flagops(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), env, cwd: process.cwd(), isTTY: false, signal: new AbortController().signal };
  const code = await runCli(args, io, COMMANDS);
  return { code, stdout, stderr };
}

describe('unknown and malformed options', () => {
  it('names an unknown option with the closest real one, and runs nothing', async () => {
    const run = await flagops(['validate', TEMPLATE, '--formt', 'json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("--formt: is not an option of 'flagops validate' (did you mean '--format'?)");
    expect(run.stderr).toContain("Run 'flagops validate --help' for its options.");
    expect(run.stderr).not.toContain('To specify a positional argument');
  });

  it('lists every unknown option at once, without a guess when nothing is close', async () => {
    const run = await flagops(['plan', TEMPLATE, '--consol', 'http://127.0.0.1:1', '--zzzzzz']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("--consol: is not an option of 'flagops plan' (did you mean '--console'?)");
    expect(run.stderr).toMatch(/--zzzzzz: is not an option of 'flagops plan'\n/);
  });

  it('says a value is missing, or not wanted', async () => {
    const missing = await flagops(['status', TEMPLATE, '--console']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--console: needs a value (--console VALUE)');
    const extra = await flagops(['fmt', TEMPLATE, '--check=yes']);
    expect(extra.code).toBe(1);
    expect(extra.stderr).toContain('--check: takes no value');
  });

  it('suggests the command a typo meant', async () => {
    const run = await flagops(['statsu']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("error: unknown command 'statsu' (did you mean 'status'?)");
  });
});

describe('--version', () => {
  it.each([['--version'], ['-v'], ['version']])('%s prints the version of package.json', async (flag) => {
    const run = await flagops([flag]);
    expect(run).toEqual({ code: 0, stdout: `flagops ${VERSION}\n`, stderr: '' });
  });
});

describe('the console URL and key', () => {
  let c: TestConsole;
  let url: string;
  beforeAll(async () => {
    c = createTestConsole();
    url = await c.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => c.close());

  it('refuses a --console without http:// or https://, saying what is expected', async () => {
    const run = await flagops(['plan', TEMPLATE, '--console', 'localhost:8080'], { FLAGOPS_API_KEY: ADMIN_KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--console must be an http(s) URL such as http://localhost:8080');
    expect(run.stderr).toContain("did you mean 'http://localhost:8080'?");
  });

  it('refuses a --console with a query or fragment, which would swallow the request paths', async () => {
    for (const console of [`${url}/?x=1`, `${url}#top`]) {
      const run = await flagops(['plan', TEMPLATE, '--console', console], { FLAGOPS_API_KEY: ADMIN_KEY });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`--console: '${console}' has a query or fragment; give the console's base URL alone`);
    }
  });

  it('tells an empty key variable from one that is not set', async () => {
    const empty = await flagops(['plan', TEMPLATE, '--console', url], { FLAGOPS_API_KEY: '' });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('the environment variable FLAGOPS_API_KEY is empty');
    expect(empty.stderr).not.toContain('not set');
    const unset = await flagops(['plan', TEMPLATE, '--console', url], {});
    expect(unset.stderr).toContain('FLAGOPS_API_KEY: is not set');
  });

  it('reports an empty approver or webhook key variable as empty', async () => {
    const apply = await flagops(['apply', TEMPLATE, '--console', url, '--auto-approve', '--allow-dirty', '--approver-key-env', 'APPROVER'], { FLAGOPS_API_KEY: ADMIN_KEY, APPROVER: '' });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('No approver key: the environment variable APPROVER is empty.');
    const bridge = await flagops(['bridge', '--repo', TEMPLATE, '--console', url, '--port', '0'], { FLAGOPS_API_KEY: ADMIN_KEY, FLAGOPS_WEBHOOK_KEY: ' ' });
    expect(bridge.code).toBe(1);
    expect(bridge.stderr).toContain('FLAGOPS_WEBHOOK_KEY: is set but empty');
  });

  it('refuses a bridge debug-link template that cannot make an http(s) link, before it listens', async () => {
    for (const template of ['javascript:alert(1)', 'ci.example.com/{commit}', 'file:///{path}']) {
      const run = await flagops(['bridge', '--repo', TEMPLATE, '--console', url, '--port', '0', '--debug-link-template', template], { FLAGOPS_API_KEY: ADMIN_KEY, FLAGOPS_WEBHOOK_KEY: 'bridge-test-key' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('--debug-link-template: must be an absolute http or https URL');
      expect(run.stdout).not.toContain('listening');
    }
  });

  it('names the variable of a key the console rejects (401), never the key', async () => {
    const run = await flagops(['status', TEMPLATE, '--console', url], { FLAGOPS_API_KEY: 'console-not-a-real-key' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the console rejected the key in FLAGOPS_API_KEY (401)');
    expect(run.stderr).not.toContain('console-not-a-real-key');
  });

  it("names the approver's variable when the console rejects that key", async () => {
    const run = await flagops(['apply', TEMPLATE, '--console', url, '--auto-approve', '--allow-dirty', '--approver-key-env', 'APPROVER'], { FLAGOPS_API_KEY: ADMIN_KEY, APPROVER: 'console-wrong-approver' });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('the console rejected the key in APPROVER (401)');
    expect(run.stdout + run.stderr).not.toContain('console-wrong-approver');
  });
});

describe("a console's answers", () => {
  it('are printed with their control characters escaped, so a hostile console cannot drive the terminal', async () => {
    const hostile = createServer((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 400, message: 'Bad \x1b]0;owned\x07 request\nforged line', errors: [{ property: 'x\x1b[2J', errorMessage: 'is \u202ewrong\x1b[8m' }] }));
    });
    await new Promise<void>((done) => hostile.listen(0, '127.0.0.1', done));
    try {
      const run = await flagops(['status', TEMPLATE, '--console', `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`], { FLAGOPS_API_KEY: 'console-any' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('Bad \\x1b]0;owned\\x07 request\nforged line');
      expect(run.stderr).toContain('x\\x1b[2J: is \\u202ewrong\\x1b[8m');
      // Nothing left to escape: no control character or override reached the output.
      expect(escapeControl(run.stderr)).toBe(run.stderr);
    } finally {
      await new Promise((done) => hostile.close(done));
    }
  });
});

describe('the command registry', () => {
  it("lists each lazy command with its module's own name and summary", async () => {
    for (const source of COMMANDS) {
      const command = await loadCommand(source);
      expect({ name: command.name, summary: command.summary }).toEqual({ name: source.name, summary: source.summary });
    }
    expect(COMMANDS.filter(isLazy).map((c) => c.name)).toEqual(['up', 'serve', 'keys', 'validate', 'plan', 'apply', 'eval', 'test', 'export', 'watch', 'bridge']);
  });

  it('shows a command\'s usage with --help and with flagops help NAME', async () => {
    const viaFlag = await flagops(['fmt', '--help']);
    const viaHelp = await flagops(['help', 'fmt']);
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stdout).toMatch(/^Usage: flagops fmt \[DIR\] \[--check\]/);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });
});
