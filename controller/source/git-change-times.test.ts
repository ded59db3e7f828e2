import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitChangeTimes } from './git-change-times.js';

const root = mkdtempSync(join(tmpdir(), 'flagops-git-times-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Commits everything at the given time (seconds since the epoch). */
function commitAt(dir: string, seconds: number, message: string): void {
  const env = { ...process.env, GIT_AUTHOR_DATE: `@${seconds} +0000`, GIT_COMMITTER_DATE: `@${seconds} +0000` };
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', message], { cwd: dir, env });
}

describe('gitChangeTimes', () => {
  it("gives each file's newest commit, now for uncommitted changes, nothing for what git cannot tell; paths relative to a folder in the work tree", async () => {
    const repo = join(root, 'repo');
    const flags = join(repo, 'config', 'flags');
    mkdirSync(join(flags, 'gates'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: repo });
    writeFileSync(join(flags, 'gates/old.yaml'), 'id: old\n');
    writeFileSync(join(flags, 'gates/edited.yaml'), 'id: edited\n');
    writeFileSync(join(flags, 'gates/dirty.yaml'), 'id: dirty\n');
    commitAt(repo, 1_700_000_000, 'first');
    writeFileSync(join(flags, 'gates/edited.yaml'), 'id: edited\nname: edited\n');
    commitAt(repo, 1_700_000_500, 'second');
    writeFileSync(join(flags, 'gates/dirty.yaml'), 'id: dirty\nname: dirty\n');
    writeFileSync(join(flags, 'gates/new file.yaml'), 'id: new\n');
    const times = await gitChangeTimes(flags, ['gates/old.yaml', 'gates/edited.yaml', 'gates/dirty.yaml', 'gates/new file.yaml', 'gates/absent.yaml'], 42);
    expect(Object.fromEntries(times)).toEqual({
      'gates/old.yaml': 1_700_000_000_000,
      'gates/edited.yaml': 1_700_000_500_000,
      'gates/dirty.yaml': 42,
      'gates/new file.yaml': 42,
    });
  });

  it('is empty outside a git work tree', async () => {
    const plain = join(root, 'plain');
    mkdirSync(join(plain, 'gates'), { recursive: true });
    writeFileSync(join(plain, 'gates/a.yaml'), 'id: a\n');
    expect((await gitChangeTimes(plain, ['gates/a.yaml'], 42)).size).toBe(0);
  });
});
