import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Plan } from '../core/plan.js';
import { applyCommand, progressPrinter, renderApplyText } from './apply-command.js';
import { runCli } from './cli.js';
import type { CliIO } from './command.js';
import { escapeControl } from '../core/escape-control.js';

function io(env: Record<string, string>, isTTY = false): CliIO & { out: string; err: string } {
  const result = {
    out: '',
    err: '',
    env,
    cwd: tmpdir(),
    isTTY,
    signal: new AbortController().signal,
    stdout: (t: string) => void (result.out += t),
    stderr: (t: string) => void (result.err += t),
  };
  return result;
}

const dir = mkdtempSync(join(tmpdir(), 'flagops-apply-cli-'));
writeFileSync(join(dir, 'flagops.yaml'), 'console: { url: http://127.0.0.1:1, apiKeyEnv: FLAGOPS_API_KEY }\napply: { approverKeyEnv: APPROVER }\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flagops apply (command)', () => {
  it("refuses an approver key that is the submitter's key, before touching the console", async () => {
    const out = io({ FLAGOPS_API_KEY: 'console-same', APPROVER: 'console-same' });
    expect(await runCli(['apply', dir, '--auto-approve'], out, [applyCommand])).toBe(1);
    expect(out.err).toMatch(/approver key must belong to another user/);
    expect(out.err).toMatch(/APPROVER: holds the same key as FLAGOPS_API_KEY/);
  });

  it('names the approver variable when it is not set', async () => {
    const out = io({ FLAGOPS_API_KEY: 'console-a' });
    expect(await runCli(['apply', dir, '--auto-approve'], out, [applyCommand])).toBe(1);
    expect(out.err).toMatch(/No approver key: set APPROVER/);
  });
});

describe('progressPrinter', () => {
  const outcome = { kind: 'gates', id: 'a', action: 'create' as const, status: 'committed' as const, message: 'ok' };
  const plan = { desired: '.', live: 'x', summary: { create: 0, update: 0, delete: 0, drift: 0, unchanged: 0, untracked: 0 }, changes: [], warnings: [] } as Plan;

  it('prints one plain line per entity when stdout is not a terminal', () => {
    const out = io({});
    const print = progressPrinter(out, 'text');
    print({ type: 'plan', plan, hash: 'h' });
    print({ type: 'outcome', outcome, done: 1, total: 2 });
    print({ type: 'waiting', kind: 'gates', id: 'b', reviewID: 'r1', on: 'approval by x@y' });
    expect(out.out).toContain('No changes');
    expect(out.err).toBe('[1/2] gates/a create: committed — ok\nwaiting: gates/b review r1 waits for approval by x@y\n');
  });

  it('draws a progress bar on a terminal, ending the line when done, and prints no plan for --format json', () => {
    const out = io({}, true);
    const print = progressPrinter(out, 'json');
    print({ type: 'plan', plan, hash: 'h' });
    print({ type: 'outcome', outcome, done: 1, total: 2 });
    print({ type: 'outcome', outcome: { ...outcome, id: 'b' }, done: 2, total: 2 });
    expect(out.out).toBe('');
    expect(out.err).toMatch(/^\r\[#{12}-{12}\] 1\/2 gates\/a/);
    expect(out.err).toMatch(/\r\[#{24}\] 2\/2 gates\/b .*\n$/);
  });
});

describe('apply output', () => {
  it('escapes control characters in ids and messages from the repository or the console', () => {
    const out = io({});
    const print = progressPrinter(out, 'text');
    print({ type: 'outcome', outcome: { kind: 'gates', id: 'a', action: 'create', status: 'failed', message: 'console said \x1b]0;title\x07\nforged line' }, done: 1, total: 1 });
    print({ type: 'waiting', kind: 'gates', id: 'b\u202e', reviewID: 'r\x1b[8m', on: 'approval by \x1b[2J' });
    expect(out.err).toBe('[1/1] gates/a create: failed — console said \\x1b]0;title\\x07\\x0aforged line\nwaiting: gates/b\\u202e review r\\x1b[8m waits for approval by \\x1b[2J\n');
    const plan = { desired: '.', live: 'x', summary: { create: 0, update: 0, delete: 0, drift: 0, unchanged: 0, untracked: 0 }, changes: [], warnings: [] } as Plan;
    const text = renderApplyText(
      { ok: false, planHash: 'h', plan, replan: { ...plan, changes: [{ kind: 'gates', id: 'c\x1b[1m', action: 'update', file: null, fields: [] }] }, outcomes: [{ kind: 'gates', id: 'a\x07', action: 'create', status: 'failed', message: 'no\nway' }] },
      1000,
    );
    expect(text).toContain('  gates/a\\x07: failed — no\\x0away');
    expect(text).toContain('(update gates/c\\x1b[1m)');
    expect(escapeControl(text)).toBe(text);
  });
});
