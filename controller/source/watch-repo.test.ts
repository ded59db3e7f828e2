import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ignoredUnder, watchRepo } from './watch-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('ignoredUnder', () => {
  const root = '/home/me/.flagops/config-repo';
  const ignored = ignoredUnder(root);

  it('judges only the part below the root: a repository inside a dot-folder is watched', () => {
    expect(ignored(root)).toBe(false);
    expect(ignored(`${root}/gates`)).toBe(false);
    expect(ignored(`${root}/gates/dark_mode.yaml`)).toBe(false);
    expect(ignored(`${root}/flagops.yaml`)).toBe(false);
  });

  it('skips git internals, installed packages and dot-entries inside the repository', () => {
    expect(ignored(`${root}/.git`)).toBe(true);
    expect(ignored(`${root}/.git/objects/ab/cdef`)).toBe(true);
    expect(ignored(`${root}/node_modules/flagops/package.json`)).toBe(true);
    expect(ignored(`${root}/.github/workflows/flagops.yaml`)).toBe(true);
    expect(ignored(`${root}/gates/.dark_mode.yaml.swp`)).toBe(true);
  });

  it('never ignores paths outside the root', () => {
    expect(ignored('/home/me/.flagops')).toBe(false);
    expect(ignored('/elsewhere/.git')).toBe(false);
  });
});

describe('watchRepo', () => {
  it('reports a save in a repository that lives under a dot-folder, and not one in its .git', async () => {
    const base = mkdtempSync(join(tmpdir(), 'flagops-watch-'));
    dirs.push(base);
    const repo = join(base, '.flagops', 'config-repo');
    mkdirSync(join(repo, 'gates'), { recursive: true });
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(join(repo, 'gates', 'a.yaml'), 'id: a\n');
    const controller = new AbortController();
    const seen: string[][] = [];
    let ready!: () => void;
    const isReady = new Promise<void>((r) => (ready = r));
    let changed!: () => void;
    const isChanged = new Promise<void>((r) => (changed = r));
    const done = watchRepo(
      repo,
      async (paths) => {
        seen.push(paths);
        changed();
      },
      { debounceMs: 10, signal: controller.signal, onReady: ready },
    );
    await isReady;
    writeFileSync(join(repo, '.git', 'index'), 'x');
    writeFileSync(join(repo, 'gates', 'a.yaml'), 'id: a\ndescription: saved\n');
    await isChanged;
    controller.abort();
    await done;
    expect(seen.flat()).toEqual([join(repo, 'gates', 'a.yaml')]);
  });
});
