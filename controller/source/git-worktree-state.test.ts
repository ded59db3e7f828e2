import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { afterAll, describe, expect, it } from 'vitest';
import { worktreeProblems, worktreeState } from './git-worktree-state.js';

const root = mkdtempSync(join(tmpdir(), 'flagops-worktree-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function repoWithFlags(name: string): Promise<string> {
  const dir = join(root, name);
  mkdirSync(join(dir, 'gates'), { recursive: true });
  writeFileSync(join(dir, 'flagops.yaml'), 'console: { url: http://127.0.0.1:1 }\n');
  writeFileSync(join(dir, 'gates/a.yaml'), 'id: a\nname: gate a\n');
  const git = simpleGit(dir);
  await git.init(['-b', 'main']).addConfig('user.email', 'dev@example.com').addConfig('user.name', 'dev');
  await git.add(['-A']).commit('flags');
  return dir;
}

describe('worktreeState', () => {
  it('is undefined outside a git repository', async () => {
    mkdirSync(join(root, 'plain'));
    expect(await worktreeState(join(root, 'plain'))).toBeUndefined();
  });

  it('names uncommitted and untracked config files, not other files', async () => {
    const dir = await repoWithFlags('dirty');
    expect(worktreeProblems((await worktreeState(dir))!)).toEqual([]);
    writeFileSync(join(dir, 'gates/a.yaml'), 'id: a\nname: gate a\ndescription: x\n');
    writeFileSync(join(dir, 'gates/b.yaml'), 'id: b\nname: gate b\n');
    writeFileSync(join(dir, 'README.md'), 'notes\n');
    const state = (await worktreeState(dir))!;
    expect(state.dirtyConfigFiles).toEqual(['gates/a.yaml', 'gates/b.yaml']);
    expect(worktreeProblems(state)[0]).toMatch(/^uncommitted changes to config files \(gates\/a.yaml, gates\/b.yaml\): .*commit and push them first$/);
  });

  it('compares HEAD with origin/<branch>, which the bridge reads', async () => {
    const origin = await repoWithFlags('origin');
    const clone = join(root, 'clone');
    await simpleGit(root).clone(origin, clone);
    const git = simpleGit(clone);
    await git.addConfig('user.email', 'dev@example.com').addConfig('user.name', 'dev');
    expect(worktreeProblems((await worktreeState(clone))!)).toEqual([]);
    writeFileSync(join(clone, 'gates/a.yaml'), 'id: a\nname: gate a\ndescription: local\n');
    await git.add(['-A']).commit('local only');
    const state = (await worktreeState(clone))!;
    expect(state.upstream?.ref).toBe('origin/main');
    expect(worktreeProblems(state)).toEqual([expect.stringMatching(/^HEAD \([0-9a-f]{12}\) is not origin\/main \([0-9a-f]{12}\), which the bridge reads: push \(or pull\) first$/)]);
  });
});
