/**
 * Completion scripts generated from the registry. The bash script runs in a real bash: the test
 * loads it and asks its completion function what it offers for a partial command line.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { COMMANDS } from './commands.js';
import { valuesFromUsage } from './completion-script.js';

async function script(shell: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), env: {}, cwd: process.cwd(), isTTY: false, signal: new AbortController().signal };
  const code = await runCli(['completion', shell], io, COMMANDS);
  return { code, stdout, stderr };
}

/** What bash completion offers for `words`, the last one being the word under the cursor. */
function bashOffers(bashScript: string, words: string[]): string[] {
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const program = `${bashScript}\nCOMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _flagops; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const run = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.split('\n').filter((line) => line !== '');
}

describe('flagops completion bash', () => {
  it('completes commands, their flags and the values their usage lists', async () => {
    const { code, stdout } = await script('bash');
    expect(code).toBe(0);
    expect(bashOffers(stdout, ['flagops', 'st'])).toEqual(['status']);
    expect(bashOffers(stdout, ['flagops', ''])).toEqual(expect.arrayContaining(COMMANDS.map((c) => c.name)));
    expect(bashOffers(stdout, ['flagops', 'validate', '--fo'])).toEqual(['--format']);
    expect(bashOffers(stdout, ['flagops', 'validate', '--format', ''])).toEqual(['text', 'json', 'sarif']);
    expect(bashOffers(stdout, ['flagops', 'fmt', '--'])).toEqual(['--check', '--help']);
    expect(bashOffers(stdout, ['flagops', 'te'])).toEqual(['test']);
    expect(bashOffers(stdout, ['flagops', 'test', '--format', ''])).toEqual(['text', 'json']);
    expect(bashOffers(stdout, ['flagops', 'plan', '--detailed'])).toEqual(['--detailed-exitcode']);
    // A value the usage does not list is left to bash's own (file) completion.
    expect(bashOffers(stdout, ['flagops', 'plan', '--console', ''])).toEqual([]);
  });
});

describe('flagops completion zsh and fish', () => {
  it('zsh: a compdef function with every command and its flags', async () => {
    const { code, stdout } = await script('zsh');
    expect(code).toBe(0);
    expect(stdout.startsWith('#compdef flagops\n')).toBe(true);
    expect(stdout).toContain("'status:Per entity: in sync, drifted or to change, pending reviews, last applied commit and when'");
    expect(stdout).toContain("validate) _arguments '--help' '--format=:format:(text json sarif)'");
    expect(stdout).toContain("'--check'");
    expect(stdout.trimEnd().endsWith('compdef _flagops flagops')).toBe(true);
  });

  it('fish: one complete line per command and per flag', async () => {
    const { code, stdout } = await script('fish');
    expect(code).toBe(0);
    expect(stdout).toContain("complete -c flagops -n __fish_use_subcommand -a bridge -d 'Receive the console\\'s pre-commit webhook and approve only changes that match git'");
    expect(stdout).toContain("complete -c flagops -n '__fish_seen_subcommand_from status' -l format -x -a 'text json'");
    expect(stdout).toContain("complete -c flagops -n '__fish_seen_subcommand_from apply' -l prune");
  });

  it('refuses another shell, naming the ones there are', async () => {
    let stderr = '';
    const code = await runCli(['completion', 'powershell'], { stdout: () => {}, stderr: (t) => void (stderr += t), env: {}, cwd: '.', isTTY: false, signal: new AbortController().signal }, COMMANDS);
    expect(code).toBe(1);
    expect(stderr).toContain("SHELL: must be one of bash, zsh, fish (got 'powershell')");
  });
});

describe('valuesFromUsage', () => {
  it('reads the alternatives a usage line lists for an option', () => {
    expect(valuesFromUsage('Usage: x [--format text|markdown|json] [--console URL]', 'format')).toEqual(['text', 'markdown', 'json']);
    expect(valuesFromUsage('Usage: x [--console URL]', 'console')).toEqual([]);
  });
});
