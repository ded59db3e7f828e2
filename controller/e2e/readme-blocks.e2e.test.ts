/**
 * The shell blocks of the README and of every page in docs/, read when the test runs, each pasted whole
 * into a fresh bash at the root of this checkout (where `npx flagops` resolves to the built CLI, as on a
 * fresh clone). Only the ports change, to free ones, so the blocks can run beside anything else.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freshShellEnv } from '../test-support/fresh-shell-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Block {
  /** `<file> › <heading>`: the page and the heading the block stands under. */
  heading: string;
  code: string;
}

/** Every ```sh block of a page with the heading it stands under. */
function shellBlocks(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  let heading = '';
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    if (line.trim() !== '```sh') continue;
    const code: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== '```'; i++) code.push(lines[i]!);
    blocks.push({ heading: `${file} › ${heading}`, code: `${code.join('\n')}\n` });
  }
  return blocks;
}

/**
 * Blocks that are not pasted-and-run examples: `npm start` runs until Ctrl-C (up.e2e.test.ts and
 * up-watch.e2e.test.ts run it) and `npm test` is the gate this test belongs to; the completion block
 * writes into the user's shell setup (cli-completion.test.ts checks the scripts); the SDK-key block is
 * a fragment that needs a running console and a key (evaluation e2e tests create SDK keys).
 */
const NOT_RUN = new Set(['README.md › The two commands', 'docs/cli.md › Shell completion', 'docs/evaluation.md › SDK keys']);

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'flagops-readme-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Ran {
  code: number | null;
  output: string;
}

/**
 * Runs a block in its own process group with `set -e` semantics and kills the whole group afterwards,
 * so the consoles and bridges it started in the background never outlive it.
 */
async function runBlock(code: string, timeoutMs: number): Promise<Ran> {
  // A fresh shell has no node_modules/.bin of a surrounding `npm test` on PATH: `npx` finds the CLI itself.
  const env = freshShellEnv(ROOT);
  // mktemp -d in the blocks lands here, removed after the test.
  env['TMPDIR'] = scratch;
  // A developer machine has a git identity; the blocks commit.
  env['GIT_AUTHOR_NAME'] = env['GIT_COMMITTER_NAME'] = 'README test';
  env['GIT_AUTHOR_EMAIL'] = env['GIT_COMMITTER_EMAIL'] = 'readme@example.com';
  env['NO_COLOR'] = '1';
  delete env['FLAGOPS_BOOTSTRAP_KEY'];
  delete env['FLAGOPS_API_KEY'];
  delete env['FLAGOPS_APPROVER_KEY'];

  const child = spawn('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', code], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone already
    }
  };
  const timer = setTimeout(() => killGroup('SIGKILL'), timeoutMs);
  const exit = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  clearTimeout(timer);
  killGroup('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  killGroup('SIGKILL');
  return { code: exit, output };
}

/** The README and every page of docs/: a block moved between them stays covered. */
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const blocks = PAGES.flatMap((page) => shellBlocks(page, readFileSync(join(ROOT, page), 'utf8')));

/** What each block must show besides exiting 0. */
const EXPECTED: Record<string, RegExp[]> = {
  'docs/api.md › A tour with curl': [/flagops console listening on/, /"id":"new_checkout"/, /"key":"console-/, /did you mean 'rules'\?/],
  'README.md › A five-minute tour': [/flagops console listening on/, /flagops bridge listening on/, /valid/, /No changes/],
};

describe('shell blocks of README.md and docs/', () => {
  it('README.md fits on a screen or two: at most 200 lines, the rest in docs/', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('has the blocks this test knows', () => {
    expect(blocks.map((b) => b.heading)).toEqual(expect.arrayContaining([...NOT_RUN, ...Object.keys(EXPECTED)]));
  });

  for (const block of blocks.filter((b) => !NOT_RUN.has(b.heading))) {
    it(`"${block.heading}" works when pasted whole into a fresh shell`, async () => {
      const ports = new Map<string, number>();
      for (const port of new Set(block.code.match(/\b(8080|8787)\b/g) ?? [])) ports.set(port, await freePort());
      const code = block.code.replace(/\b(8080|8787)\b/g, (port) => String(ports.get(port)));
      const ran = await runBlock(code, 150_000);
      expect(ran.code, ran.output).toBe(0);
      for (const pattern of EXPECTED[block.heading] ?? []) expect(ran.output, ran.output).toMatch(pattern);
    }, 180_000);
  }
});
