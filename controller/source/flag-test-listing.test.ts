/** Both readers list the flag test files: the YAML files directly inside tests/, under the same policy as entity files. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createGitRepo } from '../test-support/git-repo.js';
import { FsRepoReader } from './fs-repo-reader.js';
import { GitRepoReader } from './git-source.js';
import { loadRepo } from './load-repo.js';

const tmp: string[] = [];
afterAll(() => {
  for (const dir of tmp) rmSync(dir, { recursive: true, force: true });
});

const CASE = '- name: on\n  entity: gates/always_on\n  user: {userID: u}\n  expect: true\n';

async function repo(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'flagops-test-listing-'));
  tmp.push(dir);
  await createGitRepo(dir, {
    'flagops.yaml': 'environments: [production]\n',
    'gates/always_on.yaml': 'id: always_on\nname: always on\nrules: [{name: all, passPercentage: 100, conditions: [{type: public}]}]\n',
    'tests/a.yaml': CASE,
    'tests/b.yml': CASE.replace('expect: true', 'expect: false'),
    'tests/notes.md': 'not a test file\n',
    'tests/nested/c.yaml': CASE,
  });
  return dir;
}

describe('flag test files in the listing', () => {
  it('the working tree and a git ref list the same files, and the loader places their cases', async () => {
    const dir = await repo();
    for (const reader of [new FsRepoReader(dir), await GitRepoReader.open(dir, 'HEAD')]) {
      const listing = await reader.list();
      expect(listing.testFiles, reader.label).toEqual(['tests/a.yaml', 'tests/b.yml']);
      expect(listing.files, reader.label).not.toContain('tests/a.yaml');
      expect(listing.otherFolders, reader.label).not.toContain('tests');
      const loaded = await loadRepo(reader);
      expect(loaded.diagnostics, reader.label).toEqual([]);
      expect(loaded.flagTests.map((t) => `${t.file}:${t.line}:${t.column} ${t.test.name}`), reader.label).toEqual(['tests/a.yaml:1:3 on', 'tests/b.yml:1:3 on']);
    }
  });
});
