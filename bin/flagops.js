#!/usr/bin/env node
// Runs the compiled CLI; `npm install` builds it (the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/controller/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('flagops: not built yet; run `npm install` (or `npm run build`) in the flagops folder first.\n');
  process.exit(1);
}
await import(main.href);
