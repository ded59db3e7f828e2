import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsRepoReader } from './fs-repo-reader.js';
import { loadRepo } from './load-repo.js';

/**
 * Random repository trees: entity files with random or mutated YAML, links inside and outside the
 * repository, FIFOs, folders named *.yaml, files over the limit. Whatever the tree, loading finishes
 * in bounded time and memory, and every error names a path of the tree. A failure prints its seed;
 * FUZZ_SEED=<seed> replays it.
 */
const KINDS = ['text', 'text', 'text', 'big', 'fifo', 'link-zero', 'link-passwd', 'link-inside', 'link-broken', 'link-loop', 'dir', 'link-dir'] as const;
type Kind = (typeof KINDS)[number];
/** Entries the reader must refuse with an error naming them, when they sit where entity files are read. */
const REFUSED: ReadonlySet<Kind> = new Set(['big', 'fifo', 'link-zero', 'link-passwd', 'link-broken', 'link-loop', 'dir', 'link-dir']);
const READ_FOLDERS = new Set(['gates', 'segments', 'dynamic_configs']);
const MAX_FILE_BYTES = 64 * 1024;

const YAML_PIECES = ['[', ']', '{', '}', '&a ', '*a', ': ', '- ', '\n', '  ', 'id', 'name', 'key', '"', "'", '#', '\x1b[2J', '\u009b', '\u202e', '!!str ', '%YAML 1.2\n', '---\n', '<<: *a\n', '|\n', '1e309', 'null', 'rules:\n  - '];

const textArb = fc.oneof(
  fc.constant('id: VALID\nname: VALID\n'),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.array(fc.constantFrom(...YAML_PIECES), { maxLength: 200 }).map((parts) => parts.join('')),
  fc.integer({ min: 1, max: 3000 }).map((n) => `id: deep\nname: deep\nd: ${'['.repeat(n)}${']'.repeat(n)}\n`),
);

const entryArb = fc.record({
  folder: fc.constantFrom('gates', 'segments', 'dynamic_configs', 'gatse', 'gates/sub'),
  name: fc.constantFrom('a_gate.yaml', 'b_gate.yml', 'notes.txt', 'esc\x1b[31m.yaml', 'ünï.yaml', '.hidden.yaml', 'c_gate.yaml', 'd_gate.yaml'),
  kind: fc.constantFrom(...KINDS),
  text: textArb,
});

const treeArb = fc.record({
  config: fc.option(fc.oneof(fc.constant('prune: { enabled: false }\n'), textArb), { nil: undefined }),
  entries: fc.array(entryArb, { minLength: 1, maxLength: 10 }),
});

let root: string;
let count = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'flagops-fuzz-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Tree = typeof treeArb extends fc.Arbitrary<infer T> ? T : never;

function build(tree: Tree): { dir: string; refused: string[]; paths: Set<string> } {
  const dir = join(root, `t${count++}`);
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'data/inner.txt'), 'id: inner\nname: inner\n');
  if (tree.config !== undefined) writeFileSync(join(dir, 'flagops.yaml'), tree.config);
  const refused: string[] = [];
  const paths = new Set<string>(['flagops.yaml']);
  for (const { folder, name, kind, text } of tree.entries) {
    const path = `${folder}/${name}`;
    const full = join(dir, path);
    if (paths.has(path)) continue;
    mkdirSync(join(full, '..'), { recursive: true });
    const up = '../'.repeat(folder.split('/').length);
    switch (kind) {
      case 'text':
        writeFileSync(full, text.replaceAll('VALID', name.replace(/\.ya?ml$/, '')));
        break;
      case 'big':
        writeFileSync(full, '');
        truncateSync(full, MAX_FILE_BYTES + 1 + text.length);
        break;
      case 'fifo':
        execFileSync('mkfifo', [full]);
        break;
      case 'link-zero':
        symlinkSync('/dev/zero', full);
        break;
      case 'link-passwd':
        symlinkSync('/etc/passwd', full);
        break;
      case 'link-inside':
        symlinkSync(`${up}data/inner.txt`, full);
        break;
      case 'link-broken':
        symlinkSync(`${up}data/missing.txt`, full);
        break;
      case 'link-loop':
        symlinkSync(name, full);
        break;
      case 'dir':
        mkdirSync(full);
        break;
      case 'link-dir':
        symlinkSync(`${up}data`, full);
        break;
    }
    paths.add(path);
    if (REFUSED.has(kind) && READ_FOLDERS.has(folder) && /\.ya?ml$/.test(name)) refused.push(path);
  }
  return { dir, refused, paths };
}

describe('random repository trees', () => {
  it('load in bounded memory without blocking, refuse every hostile entry by its path, and give every error a path', async () => {
    const seed = Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31);
    const rssBefore = process.memoryUsage().rss;
    try {
      await fc.assert(
        fc.asyncProperty(treeArb, async (tree) => {
          const { dir, refused, paths } = build(tree);
          // A load that blocks (a FIFO, a device) runs into the test's own limit; one that reads
          // without bound (a symlink loop, /dev/zero) into this memory bound, far above a normal run.
          const repo = await loadRepo(new FsRepoReader(dir, undefined, { allowEmpty: true, limits: { maxFileBytes: MAX_FILE_BYTES } }));
          expect(process.memoryUsage().rss - rssBefore).toBeLessThan(500 * 1024 * 1024);
          for (const d of repo.diagnostics) {
            expect(d.file === 'flagops.yaml' || paths.has(d.file) || paths.has(d.file.replace(/\/$/, '')) || [...paths].some((p) => p.startsWith(d.file)), JSON.stringify(d)).toBe(true);
            expect(d.line).toBeGreaterThanOrEqual(1);
            expect(d.column).toBeGreaterThanOrEqual(1);
          }
          const errorFiles = new Set(repo.diagnostics.filter((d) => d.severity === 'error').map((d) => d.file));
          for (const path of refused) expect(errorFiles.has(path), `${path} must be refused`).toBe(true);
          rmSync(dir, { recursive: true, force: true });
        }),
        { seed, numRuns: 60 },
      );
    } catch (error) {
      throw new Error(`repository-tree fuzz failed with seed ${seed} (replay: FUZZ_SEED=${seed}): ${(error as Error).message}`, { cause: error });
    }
  });
});
