/**
 * Writes the JSON Schema files generated from the zod schemas: `schemas/json/`, and the copies the
 * config-repo template and the example repository reference from their modelines.
 * `--check` writes nothing and fails when a file is missing, different or stale.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildJsonSchemaFiles } from './json-schemas.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const TARGETS = ['schemas/json', 'config-repo-template/schemas', 'examples/config-repo/schemas'];

const check = process.argv.includes('--check');
const files = buildJsonSchemaFiles();
const problems: string[] = [];
let written = 0;

for (const target of TARGETS) {
  const dir = join(root, target);
  if (!check) mkdirSync(dir, { recursive: true });
  const wanted = new Set(files.map((f) => f.name));
  for (const file of files) {
    const path = join(dir, file.name);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (current === file.text) continue;
    if (check) problems.push(`${target}/${file.name} is ${current === undefined ? 'missing' : 'out of date'}`);
    else {
      writeFileSync(path, file.text);
      written++;
    }
  }
  const stale = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.schema.json') && !wanted.has(name)) : [];
  for (const name of stale) {
    if (check) problems.push(`${target}/${name} is stale (no schema generates it)`);
    else rmSync(join(dir, name));
  }
}

if (check) {
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\nRun 'npm run schemas' and commit the result.\n`);
    process.exitCode = 1;
  } else process.stdout.write(`schemas: ${files.length} JSON Schema files up to date in ${TARGETS.length} folders.\n`);
} else process.stdout.write(`schemas: wrote ${written} file(s); ${files.length} schemas in ${TARGETS.length} folders.\n`);
