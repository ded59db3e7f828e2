import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { COMMANDS } from './commands.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function validate(dir: string, format = 'text'): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await runCli(['validate', dir, '--format', format], { stdout: (t) => void (stdout += t), stderr: () => undefined, env: {}, cwd: dir, isTTY: false, signal: new AbortController().signal }, COMMANDS);
  return { code, stdout };
}

describe('flagops validate and conditions the engine cannot evaluate', () => {
  it('warns at the condition\'s file:line:col, and the repository stays valid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flagops-unevaluable-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'flagops.yaml'), 'console:\n  url: http://127.0.0.1:8080\n');
    mkdirSync(join(dir, 'gates'));
    writeFileSync(
      join(dir, 'gates', 'odd.yaml'),
      [
        'id: odd',
        'name: odd',
        'rules:',
        '  - name: fine',
        '    passPercentage: 100',
        '    conditions:',
        '      - type: email',
        '        operator: str_ends_with_any',
        '        targetValue: ["@acme.example"]',
        '  - name: strange',
        '    passPercentage: 100',
        '    conditions:',
        '      - type: public',
        '      - type: weather',
        '        operator: any',
        '        targetValue: [sunny]',
        '      - type: email',
        '        operator: sounds_like',
        '        targetValue: [bob]',
        '',
      ].join('\n'),
    );
    const run = await validate(dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/gates\/odd\.yaml:14:\d+ rules\[1\]\.conditions\[1\]\.type: .*cannot evaluate a 'weather' condition/);
    expect(run.stdout).toMatch(/gates\/odd\.yaml:17:\d+ rules\[1\]\.conditions\[2\]\.type: .*'email' condition with operator 'sounds_like'/);
    expect(run.stdout).not.toContain('conditions[0]');
    const json = JSON.parse((await validate(dir, 'json')).stdout) as { diagnostics: { severity: string; code: string }[] };
    const evaluation = json.diagnostics.filter((d) => d.code === 'evaluation');
    expect(evaluation).toHaveLength(2);
    expect(evaluation.every((d) => d.severity === 'warning')).toBe(true);
  });
});
