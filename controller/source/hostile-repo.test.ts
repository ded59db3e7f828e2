import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimpleGit } from 'simple-git';
import { initGitRepo } from '../test-support/git-repo.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from '../core/repo-entity.js';
import { InputError } from '../errors.js';
import { FsRepoReader } from './fs-repo-reader.js';
import { GitRepoReader } from './git-source.js';
import { loadRepo, readRepoConfig } from './load-repo.js';
import { MAX_DEPTH } from './parse-yaml-file.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'flagops-hostile-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
/** A fresh repository folder with the given text files. */
function repo(files: Record<string, string>): string {
  const dir = join(root, `r${count++}`);
  mkdirSync(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const GATE = (id: string): string => `id: ${id}\nname: ${id}\n`;
const errorsOf = (diagnostics: Diagnostic[]): Diagnostic[] => diagnostics.filter((d) => d.severity === 'error');
const byFile = (diagnostics: Diagnostic[]): Record<string, string> => Object.fromEntries(errorsOf(diagnostics).map((d) => [d.file, d.message]));

describe('the working-tree reader', () => {
  it('reads only regular files inside the repository: every other entry is one error with its path, and the rest is still checked', async () => {
    const dir = repo({ 'flagops.yaml': 'prune: { enabled: false }\n', 'gates/good_gate.yaml': GATE('good_gate'), 'data/inner.txt': GATE('linked_gate') });
    symlinkSync('/dev/zero', join(dir, 'gates/zero.yaml'));
    execFileSync('mkfifo', [join(dir, 'gates/fifo.yaml')]);
    symlinkSync('/etc/passwd', join(dir, 'gates/passwd.yaml'));
    mkdirSync(join(dir, 'gates/folder.yaml'));
    symlinkSync('../data', join(dir, 'gates/folder_link.yaml'));
    symlinkSync(tmpdir(), join(dir, 'gates/outside_folder.yaml'));
    symlinkSync('nowhere', join(dir, 'gates/broken.yaml'));
    symlinkSync('loop.yaml', join(dir, 'gates/loop.yaml'));
    // A link that stays inside the repository is followed.
    symlinkSync('../data/inner.txt', join(dir, 'gates/linked_gate.yaml'));

    const loaded = await loadRepo(new FsRepoReader(dir));
    expect(byFile(loaded.diagnostics)).toEqual({
      'gates/zero.yaml': expect.stringMatching(/symbolic link to a location outside the repository; not read/),
      'gates/fifo.yaml': expect.stringMatching(/is a FIFO \(named pipe\), not a regular file/),
      'gates/passwd.yaml': expect.stringMatching(/outside the repository/),
      'gates/folder.yaml': expect.stringMatching(/is a folder, not a regular file/),
      'gates/folder_link.yaml': expect.stringMatching(/symbolic link to a folder/),
      'gates/outside_folder.yaml': expect.stringMatching(/outside the repository/),
      'gates/broken.yaml': expect.stringMatching(/broken link/),
      'gates/loop.yaml': expect.stringMatching(/symbolic link loop/),
    });
    expect(errorsOf(loaded.diagnostics).every((d) => d.line === 1 && d.column === 1 && d.code === 'file')).toBe(true);
    expect(loaded.entities.map((e) => e.id).sort()).toEqual(['good_gate', 'linked_gate']);
  });

  it('refuses a flagops.yaml that links outside the repository, in validate and for the commands that read only the settings', async () => {
    const dir = repo({ 'gates/a_gate.yaml': GATE('a_gate') });
    symlinkSync('/etc/passwd', join(dir, 'flagops.yaml'));
    const loaded = await loadRepo(new FsRepoReader(dir));
    expect(byFile(loaded.diagnostics)).toEqual({ 'flagops.yaml': expect.stringMatching(/outside the repository/) });
    const refused = await readRepoConfig(new FsRepoReader(dir)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InputError);
    // Printed as validate prints it: `flagops.yaml:1:1 is a symbolic link ...`.
    expect((refused as InputError).errors).toEqual([{ property: '', errorMessage: expect.stringMatching(/^flagops\.yaml:1:1 is a symbolic link to a location outside the repository/) }]);
  });

  it('never reads a file over the per-file limit, names its size, and lets flagops.yaml or the reader options raise or lower it', async () => {
    const big = `${GATE('big_gate')}description: ${'x'.repeat(1024 * 1024 + 10)}\n`;
    const dir = repo({ 'gates/big_gate.yaml': big, 'gates/small_gate.yaml': GATE('small_gate') });
    const refused = await loadRepo(new FsRepoReader(dir));
    expect(byFile(refused.diagnostics)).toEqual({ 'gates/big_gate.yaml': expect.stringMatching(/^is 1048\d+ bytes, over the limit of 1 MiB per file \(limits\.maxFileBytes in flagops\.yaml or --max-file-size\); not read$/) });
    expect(refused.entities.map((e) => e.id)).toEqual(['small_gate']);

    writeFileSync(join(dir, 'flagops.yaml'), 'limits: { maxFileBytes: 2097152 }\n');
    const raised = await loadRepo(new FsRepoReader(dir));
    expect(byFile(raised.diagnostics)['gates/big_gate.yaml']).not.toMatch(/limit/);

    const flag = await loadRepo(new FsRepoReader(dir, undefined, { limits: { maxFileBytes: 100 } }));
    expect(byFile(flag.diagnostics)['gates/big_gate.yaml']).toMatch(/over the limit of 100 bytes per file/);
  });

  it('stops at the repository limit with one error naming how many files it left unread', async () => {
    const dir = repo({ 'flagops.yaml': 'limits: { maxRepoBytes: 60 }\n', 'gates/a_gate.yaml': GATE('a_gate'), 'gates/b_gate.yaml': GATE('b_gate'), 'gates/c_gate.yaml': GATE('c_gate'), 'gates/d_gate.yaml': GATE('d_gate') });
    const loaded = await loadRepo(new FsRepoReader(dir));
    expect(byFile(loaded.diagnostics)).toEqual({ 'gates/c_gate.yaml': "not read (nor 1 more file after it): the repository's files exceed the limit of 60 bytes in total (limits.maxRepoBytes in flagops.yaml or --max-repo-size)" });
    expect(loaded.entities.map((e) => e.id)).toEqual(['a_gate', 'b_gate']);
  });

  it('refuses a kind folder that is a link or a file instead of a folder', async () => {
    const dir = repo({ 'flagops.yaml': '', 'data/a_gate.yaml': GATE('a_gate'), segments: 'not a folder\n' });
    symlinkSync('data', join(dir, 'gates'));
    const loaded = await loadRepo(new FsRepoReader(dir));
    expect(byFile(loaded.diagnostics)).toEqual({
      gates: 'is a symbolic link, not a folder: a kind folder must be a real folder of the repository; not read',
      segments: 'is a file, not a folder: a kind folder must be a real folder of the repository; not read',
    });
    expect(loaded.fileCount).toBe(0);
  });

  it('treats a folder with neither flagops.yaml nor a kind folder as the wrong folder, unless asked to accept it', async () => {
    const dir = repo({ 'README.md': '# not a config repository\n' });
    await expect(loadRepo(new FsRepoReader(dir))).rejects.toThrow(/is not a config repository: it has no flagops\.yaml and none of the folders segments\/, gates\//);
    expect((await loadRepo(new FsRepoReader(dir, undefined, { allowEmpty: true }))).diagnostics).toEqual([]);
    // An empty but real repository stays valid.
    expect((await loadRepo(new FsRepoReader(repo({ 'flagops.yaml': '' })))).diagnostics).toEqual([]);
    const onlyFolder = repo({});
    mkdirSync(join(onlyFolder, 'gates'));
    expect((await loadRepo(new FsRepoReader(onlyFolder))).diagnostics).toEqual([]);
  });

  it('stops reading when its signal is aborted', async () => {
    const files: Record<string, string> = { 'flagops.yaml': '' };
    for (let i = 0; i < 600; i++) files[`gates/g_${i}.yaml`] = GATE(`g_${i}`);
    const controller = new AbortController();
    controller.abort();
    await expect(loadRepo(new FsRepoReader(repo(files), undefined, { signal: controller.signal }))).rejects.toThrow(/Interrupted: stopped reading the config repository/);
  });
});

describe('parse bounds', () => {
  it('places every parse error, however deep or odd, at file:line:col and still checks the other files', async () => {
    const deepFlow = `id: deep_flow\nname: deep_flow\ndescription: ${'['.repeat(100)}${']'.repeat(100)}\n`;
    const runawayFlow = `id: runaway\nname: runaway\ndescription: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    let deepBlock = 'id: deep_block\nname: deep_block\ntags:\n';
    for (let i = 1; i <= MAX_DEPTH + 5; i++) deepBlock += `${' '.repeat(i)}k:\n`;
    const bomb = `id: bomb\nname: bomb\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n`;
    let manyKeys = 'id: many_keys\nname: many_keys\n';
    for (let i = 0; i < 130_000; i++) manyKeys += `k${i}: 1\n`;
    let fewerKeys = 'id: fewer_keys\nname: fewer_keys\nrules:\n';
    for (let i = 0; i < 1100; i++) fewerKeys += `  - { name: r${i}, passPercentage: 1, conditions: [], bogus: 1 }\n`;
    const dir = repo({ 'flagops.yaml': 'limits: { maxFileBytes: 4194304 }\n', 'gates/deep_flow.yaml': deepFlow, 'gates/runaway.yaml': runawayFlow, 'gates/deep_block.yaml': deepBlock, 'gates/bomb.yaml': bomb, 'gates/many_keys.yaml': manyKeys, 'gates/fewer_keys.yaml': fewerKeys, 'gates/fine_gate.yaml': GATE('fine_gate') });
    const loaded = await loadRepo(new FsRepoReader(dir));
    const first = (file: string): Diagnostic | undefined => loaded.diagnostics.find((d) => d.file === file && d.severity === 'error');
    expect(first('gates/deep_flow.yaml')).toMatchObject({ line: 3, column: 14 + MAX_DEPTH - 1, message: `nests deeper than ${MAX_DEPTH} levels of mappings and sequences` });
    // Where the nesting passes the limit, found without parsing the hundred thousand levels after it.
    expect(first('gates/runaway.yaml')).toMatchObject({ line: 3, column: 14 + MAX_DEPTH - 1, message: `nests deeper than ${MAX_DEPTH} levels of mappings and sequences` });
    expect(loaded.diagnostics.filter((d) => d.file === 'gates/deep_block.yaml')).toContainEqual(expect.objectContaining({ line: 3 + MAX_DEPTH, column: MAX_DEPTH + 1, message: expect.stringMatching(/nests deeper/) }));
    expect(first('gates/bomb.yaml')).toMatchObject({ line: 1, column: 1, message: expect.stringMatching(/expands aliases more than 1000 times/) });
    // A file of a hundred thousand keys: one error naming it, no stack overflow, no minutes of checks.
    expect(loaded.diagnostics.filter((d) => d.file === 'gates/many_keys.yaml')).toEqual([
      expect.objectContaining({ line: 1, column: 1, code: 'unknown-field', message: 'has 130002 top-level keys; an entity has at most a few dozen fields (1000 keys are the most checked)' }),
    ]);
    // Below that bound every problem is an issue, and at most 1000 are placed and shown.
    const fewer = loaded.diagnostics.filter((d) => d.file === 'gates/fewer_keys.yaml');
    expect(fewer).toHaveLength(1001);
    expect(fewer).toContainEqual(expect.objectContaining({ line: 1, column: 1, message: expect.stringMatching(/^and \d+ more problems in this file \(the first 1000 are shown\)$/) }));
    expect(fewer.find((d) => d.code === 'unknown-field')).toMatchObject({ line: 4, property: 'rules[0].bogus' });
    expect(loaded.entities.map((e) => e.id)).toEqual(['fine_gate']);
  });
});

describe('the git reader', () => {
  let dir: string;
  let git: SimpleGit;
  beforeAll(async () => {
    dir = repo({ 'flagops.yaml': '', 'gates/good_gate.yaml': GATE('good_gate'), 'gates/big_gate.yaml': `${GATE('big_gate')}# ${'x'.repeat(2000)}\n` });
    symlinkSync('/etc/passwd', join(dir, 'gates/passwd.yaml'));
    symlinkSync('good_gate.yaml', join(dir, 'gates/inner_link.yaml'));
    git = await initGitRepo(dir);
    await git.add('.');
    // A submodule entry, as `git submodule add` records it.
    await git.raw(['update-index', '--add', '--cacheinfo', '160000,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,gates/sub.yaml']);
    await git.commit('hostile');
  });

  it('reports symbolic links and submodules with their path, never resolved, and reads the rest', async () => {
    const reader = await GitRepoReader.open(dir, 'HEAD');
    const listing = await reader.list();
    expect(listing.problems).toEqual([
      { path: 'gates/inner_link.yaml', message: 'is a symbolic link in git; links are not followed; not read' },
      { path: 'gates/passwd.yaml', message: 'is a symbolic link in git; links are not followed; not read' },
      { path: 'gates/sub.yaml', message: 'is a git submodule, not a file; not read' },
    ]);
    const loaded = await loadRepo(reader);
    expect(Object.keys(byFile(loaded.diagnostics))).toEqual(['gates/inner_link.yaml', 'gates/passwd.yaml', 'gates/sub.yaml']);
    expect(loaded.entities.map((e) => e.id)).toEqual(['big_gate', 'good_gate']);
  });

  it('never shows a blob over the limit: an error with its size for the loader, an InputError naming it for the bridge', async () => {
    const reader = await GitRepoReader.open(dir, 'HEAD', { limits: { maxFileBytes: 1000 } });
    const loaded = await loadRepo(reader);
    expect(byFile(loaded.diagnostics)['gates/big_gate.yaml']).toMatch(/^is 20\d\d bytes, over the limit of 1000 bytes per file/);
    await reader.list();
    await expect(reader.read(['gates/big_gate.yaml', 'gates/good_gate.yaml'])).rejects.toThrow(InputError);
    expect((await reader.read(['gates/good_gate.yaml'])).get('gates/good_gate.yaml')).toBe(GATE('good_gate'));
  });
});

describe('both readers', () => {
  const LATIN1 = Buffer.concat([Buffer.from('id: latin_gate\nname: latin_gate\ndescription: caf'), Buffer.from([0xe9]), Buffer.from(' cr'), Buffer.from([0xe8]), Buffer.from('me\n')]);
  const UTF16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(GATE('wide_gate'), 'utf16le')]);
  let dir: string;
  beforeAll(async () => {
    dir = repo({ 'flagops.yaml': '', 'gates/good_gate.yaml': GATE('good_gate'), 'gates/dir.yaml/inner.yaml': GATE('inner'), 'gates/sub/other.yaml': GATE('other') });
    writeFileSync(join(dir, 'gates/latin_gate.yaml'), LATIN1);
    writeFileSync(join(dir, 'gates/wide_gate.yaml'), UTF16);
    const git = await initGitRepo(dir);
    await git.add('.');
    await git.commit('both');
  });

  it('refuse bytes that are not UTF-8 at their position, a UTF-16 file, and a folder named *.yaml, with the same diagnostics', async () => {
    const expected = [
      { file: 'gates/dir.yaml', line: 1, column: 1, message: 'is a folder, not a regular file; not read', severity: 'error' },
      { file: 'gates/latin_gate.yaml', line: 3, column: 17, message: 'is not valid UTF-8 (byte 0xE9)', severity: 'error' },
      { file: 'gates/sub/', line: 1, column: 1, message: 'folders inside a kind folder are ignored: put entity files directly in the kind folder', severity: 'warning' },
      { file: 'gates/wide_gate.yaml', line: 1, column: 1, message: 'is UTF-16 text; save it as UTF-8', severity: 'error' },
    ];
    for (const reader of [new FsRepoReader(dir), await GitRepoReader.open(dir, 'HEAD')]) {
      const loaded = await loadRepo(reader);
      expect(loaded.diagnostics.map(({ file, line, column, message, severity }) => ({ file, line, column, message, severity })), reader.label).toEqual(expected);
      // Nothing of a refused file is read: no misleading schema errors about a mangled name.
      expect(loaded.entities.map((e) => e.id)).toEqual(['good_gate']);
    }
  });

  it('name the position in the error of a caller that needs every file (the bridge, the settings of a command)', async () => {
    for (const reader of [new FsRepoReader(dir), await GitRepoReader.open(dir, 'HEAD')]) {
      await reader.list();
      const refused = await reader.read(['gates/good_gate.yaml', 'gates/latin_gate.yaml']).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InputError);
      expect((refused as InputError).errors).toEqual([{ property: '', errorMessage: 'gates/latin_gate.yaml:3:17 is not valid UTF-8 (byte 0xE9)' }]);
    }
  });
});
