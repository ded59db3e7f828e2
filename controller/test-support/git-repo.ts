import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleGit, type SimpleGit } from 'simple-git';

/** Writes each file (path relative to `dir` → text), creating folders as needed. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** `git init` in `dir` (with `initArgs`), a committer configured and commit signing off: ready to commit. */
export async function initGitRepo(dir: string, initArgs: string[] = []): Promise<SimpleGit> {
  const git = simpleGit(dir);
  await git.init(initArgs).addConfig('user.email', 'dev@example.com').addConfig('user.name', 'dev').addConfig('commit.gpgsign', 'false');
  return git;
}

/**
 * A real git repository for a test: the files written, `git init -b main`, a committer configured, and
 * everything committed with `message`. Resolves with the commit's hash.
 */
export async function createGitRepo(dir: string, files: Record<string, string>, message = 'flags'): Promise<string> {
  writeFiles(dir, files);
  const git = await initGitRepo(dir, ['-b', 'main']);
  await git.add(['-A']).commit(message);
  return (await git.revparse(['HEAD'])).trim();
}

/** The example flags (examples/config-repo) copied to `dir` as a git repository on main, committed. */
export async function exampleGitRepo(dir: string): Promise<string> {
  cpSync(fileURLToPath(new URL('../../examples/config-repo', import.meta.url)), dir, { recursive: true });
  const git = await initGitRepo(dir, ['-b', 'main']);
  await git.add(['-A']).commit('the example flags');
  return (await git.revparse(['HEAD'])).trim();
}
