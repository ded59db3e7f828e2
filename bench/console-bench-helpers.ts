import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** A JSON call of the console API with an admin key; a non-2xx answer throws with its body. */
export function adminApi(adminKey: string): (base: string, method: string, path: string, body?: unknown) => Promise<Record<string, unknown>> {
  return async (base, method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'SERVICE-API-KEY': adminKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
}

export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Compiles the CLI the benchmark starts (bin/flagops.js runs dist/), unless told not to. */
export function buildCli(root: string, skip: boolean): void {
  if (skip) return;
  process.stderr.write('building (tsc; pass --no-build to skip)...\n');
  const build = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
}
