/**
 * bench:fast-paths — each fast path of reading and comparing a repository against the general code it
 * stands in front of, in one process, on the files of a generated repository (bench/generate-repo.ts):
 *
 * - block YAML: the line reader of block YAML (`blockYamlLoad`) against the full `yaml` parse (on a
 *   fifth of the files: the full parse is slow);
 * - js-yaml: `parseYamlFile` against the full `yaml` parse, on files the line reader leaves (each file
 *   given a comment with a character outside its subset, an emoji);
 * - JSON5: `parseJson5` (the subset reader, json5 behind it) against `JSON5.parse`, on the JSON5 blocks;
 * - zod: `parseWith` (the parser compiled from each schema, zod behind it) against zod's `safeParse`;
 * - canonical forms: `canonical` (compiled per kind, field names as literals) against
 *   `canonicalReference`, the same computation interpreted;
 * - with `--pg URL` (a server where the user may create a scratch database), the change-marks check: `PgPipelinedStatement` against node-postgres' own
 *   `client.query` of the same prepared statement (one at a time, as node-postgres runs them), per check.
 *
 * CPU time of each side, the two sides alternating round by round (a neighbour's burst then falls on
 * both), medians of the rounds and of the per-round ratios.
 *
 * Usage: npm run bench:fast-paths [-- --size 5000 --rounds 11 --pg postgres://postgres@127.0.0.1:5432/postgres]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSON5 from 'json5';
import pg from 'pg';
import { entityFileSchema } from '../schemas/entity-file.js';
import { ENTITY_SCHEMAS, type EntitySchemaEntry } from '../schemas/index.js';
import { parseJson5 } from '../controller/core/fast-json5.js';
import { canonical, canonicalReference } from '../controller/core/normalize.js';
import type { JsonObject } from '../controller/core/repo-entity.js';
import { parseWith } from '../controller/core/zod-errors.js';
import { blockYamlLoad } from '../controller/source/block-yaml-load.js';
import { MAX_DEPTH, parseYamlFile, parseYamlFileFully } from '../controller/source/parse-yaml-file.js';
import { createPostgresStore, MARKS_QUERY, TEXT_TYPES } from '../controller/store/postgres/create-postgres-store.js';
import { PgPipelinedStatement } from '../controller/store/postgres/pg-pipelined-statement.js';
import { generateRepo } from './generate-repo.js';
import { createScratchDatabase } from './scratch-database.js';

const option = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const arg = (name: string, fallback: number): number => Number(option(name) ?? fallback);

interface File {
  entry: EntitySchemaEntry;
  path: string;
  text: string;
}

function readFiles(dir: string): File[] {
  const files: File[] = [];
  for (const entry of ENTITY_SCHEMAS) {
    let names: string[] = [];
    try {
      names = readdirSync(join(dir, entry.folder));
    } catch {
      continue;
    }
    for (const name of names) files.push({ entry, path: `${entry.folder}/${name}`, text: readFileSync(join(dir, entry.folder, name), 'utf8') });
  }
  return files;
}

/** Every JSON5 text of a value (the `…Json5` fields, at any depth). */
function json5Texts(value: unknown, out: string[]): string[] {
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key.endsWith('Json5') && typeof child === 'string') out.push(child);
      else json5Texts(child, out);
    }
  }
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const cpuMsAsync = async (run: () => Promise<void>): Promise<number> => {
  const since = process.cpuUsage();
  await run();
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** The two sides in turns, two unmeasured rounds first; prints the medians and the median ratio. */
async function compare(label: string, fast: () => void | Promise<void>, general: () => void | Promise<void>, rounds: number, unit = 'ms'): Promise<void> {
  const measure = (run: () => void | Promise<void>): Promise<number> => cpuMsAsync(async () => run());
  for (let i = 0; i < 2; i++) {
    await fast();
    await general();
  }
  const fastMs: number[] = [];
  const generalMs: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const f = await measure(fast);
    const g = await measure(general);
    fastMs.push(f);
    generalMs.push(g);
    ratios.push(g / f);
  }
  console.log(`${label.padEnd(16)} fast path ${median(fastMs).toFixed(1).padStart(7)} ${unit}   without ${median(generalMs).toFixed(1).padStart(7)} ${unit}   ${median(ratios).toFixed(1)}× faster`);
}

const MARKS_CHECKS = 1000;

/** The change-marks query, pipelined (four in flight, as the marks refresher sends them) and through node-postgres. */
async function compareMarks(adminUrl: string, rounds: number): Promise<void> {
  // A scratch database with flagops' schema (the query reads store_marks).
  const database = await createScratchDatabase(adminUrl);
  const url = database.url;
  try {
    const store = createPostgresStore(url);
    await store.open?.();
    await store.close?.();
    const pipelined = await PgPipelinedStatement.open({ connectionString: url }, 'bench_marks', MARKS_QUERY);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const statement: pg.QueryArrayConfig = { name: 'bench_marks', text: MARKS_QUERY, rowMode: 'array', types: TEXT_TYPES };
    await compare(
      'marks check',
      async () => {
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            for (let i = 0; i < MARKS_CHECKS / 4; i++) await pipelined.query();
          }),
        );
      },
      async () => {
        for (let i = 0; i < MARKS_CHECKS; i++) await client.query(statement);
      },
      rounds,
      'ms per 1,000',
    );
    pipelined.close();
    await client.end();
  } finally {
    await database.drop();
  }
}

async function main(): Promise<void> {
  const size = arg('size', 5000);
  const rounds = arg('rounds', 11);
  const dir = mkdtempSync(join(tmpdir(), 'flagops-bench-fast-paths-'));
  try {
    generateRepo(dir, size);
    const files = readFiles(dir);
    const entities = files.map((f) => ({ entry: f.entry, data: parseYamlFile(f.path, f.text).data as JsonObject }));
    const texts = entities.flatMap((e) => json5Texts(e.data, []));
    // The full `yaml` parse is slow: the YAML readers are compared on a fifth of the files.
    const some = files.slice(0, Math.ceil(files.length / 5));
    // A comment the block reader does not read (a character outside the Basic Multilingual Plane).
    const outside = some.map((f) => ({ ...f, text: f.text.replace(/^(name|id): .*$/m, '$&\n# Launch \u{1F680}') }));
    if (outside.some((f) => blockYamlLoad(f.text, MAX_DEPTH) !== undefined)) throw new Error('the js-yaml corpus must be outside the block reader');
    console.log(`${files.length} files, ${texts.length} JSON5 texts, ${outside.length} files outside the block reader; CPU time, median of ${rounds} rounds`);
    let sink: unknown;
    await compare('block YAML', () => some.forEach((f) => (sink = blockYamlLoad(f.text, MAX_DEPTH))), () => some.forEach((f) => (sink = parseYamlFileFully(f.path, f.text).data)), rounds);
    await compare('js-yaml', () => outside.forEach((f) => (sink = parseYamlFile(f.path, f.text).data)), () => outside.forEach((f) => (sink = parseYamlFileFully(f.path, f.text).data)), rounds);
    await compare('JSON5', () => texts.forEach((t) => (sink = parseJson5(t))), () => texts.forEach((t) => (sink = JSON5.parse(t))), rounds);
    await compare('zod', () => entities.forEach((e) => (sink = parseWith(entityFileSchema(e.entry), e.data))), () => entities.forEach((e) => (sink = entityFileSchema(e.entry).safeParse(e.data))), rounds);
    await compare('canonical forms', () => entities.forEach((e) => (sink = canonical(e.entry, e.data, undefined))), () => entities.forEach((e) => (sink = canonicalReference(e.entry, e.data, undefined))), rounds);
    void sink;
    const url = option('pg');
    if (url !== undefined) await compareMarks(url, rounds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
