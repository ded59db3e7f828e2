import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { COMMANDS } from './commands.js';

// `flagops validate` on user-supplied schema patterns: they run on the linear-time engine of
// controller/core/linear-pattern.ts, so a hostile pattern/value pair can't hang a CI run.

const tmp: string[] = [];
afterAll(() => {
  for (const dir of tmp) rmSync(dir, { recursive: true, force: true });
});

function repoWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'flagops-patterns-'));
  tmp.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function validate(dir: string): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await runCli(['validate', dir], { stdout: (t) => void (stdout += t), stderr: (t) => void (stdout += t), env: {}, cwd: dir, isTTY: false, signal: new AbortController().signal }, COMMANDS);
  return { code, stdout };
}

describe('flagops validate: schema patterns', () => {
  it('refuses a backreference with file:line:col, the field and why', async () => {
    const dir = repoWith({
      'dynamic_configs/pairs.yaml': ['id: pairs', 'name: pairs', 'schemaJson5: |', "  { type: 'object', properties: { code: { type: 'string', pattern: '^(\\\\w)\\\\1$' } } }", 'defaultValue:', '  code: aa', ''].join('\n'),
    });
    const run = await validate(dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'dynamic_configs/pairs.yaml:3:14 schemaJson5: has an unsupported pattern at /properties/code/pattern: "^(\\\\w)\\\\1$" uses a backreference \\1, which is not supported: schema patterns run on a linear-time engine (RE2) so that no value can make validation hang, and lookaround and backreferences cannot be matched in linear time',
    );
  });

  it('refuses a lookbehind in a plain schema', async () => {
    const dir = repoWith({
      'dynamic_configs/prices.yaml': ['id: prices', 'name: prices', 'schema: \'{"type":"object","properties":{"price":{"type":"string","pattern":"(?<=\\\\$)\\\\d+"}}}\'', 'defaultValue:', '  price: $5', ''].join('\n'),
    });
    const run = await validate(dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/dynamic_configs\/prices\.yaml:3:\d+ schema: has an unsupported pattern at \/properties\/price\/pattern: .* uses a lookbehind \(\?<=\.\.\.\), which is not supported: schema patterns run on a linear-time engine/);
  });

  it('answers a catastrophic-backtracking pattern on a 10,000-character value', async () => {
    const dir = repoWith({
      'dynamic_configs/hostile.yaml': ['id: hostile', 'name: hostile', 'schema: \'{"type":"object","properties":{"a":{"type":"string","pattern":"^(a+)+$"}}}\'', 'defaultValue:', `  a: ${'a'.repeat(10_000)}!`, ''].join('\n'),
    });
    const run = await validate(dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`dynamic_configs/hostile.yaml:5:3 defaultValue: does not match the config's schema: /a must match pattern "^(a+)+$"`);
  });

  it('accepts ordinary and unicode patterns', async () => {
    const dir = repoWith({
      'dynamic_configs/catalog.yaml': [
        'id: catalog',
        'name: catalog',
        'schemaJson5: |',
        "  { type: 'object', properties: { sku: { type: 'string', pattern: '^[a-z]+-\\\\d{3}$' }, label: { type: 'string', pattern: '^\\\\p{L}[\\\\p{L} ]*$' } } }",
        'defaultValue:',
        '  sku: shoe-123',
        '  label: Chaussures élégantes',
        '',
      ].join('\n'),
    });
    const run = await validate(dir);
    expect(run.stdout).toMatch(/1 entity files? valid/);
    expect(run.code).toBe(0);
  });
});
