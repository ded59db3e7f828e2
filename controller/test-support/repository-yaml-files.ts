import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root (this file's folder is controller/test-support). */
export const REPOSITORY_ROOT = join(import.meta.dirname, '..', '..');

/** Every YAML file under `dir` (examples, template, fixtures), skipping dependencies, builds and dot folders. */
export function repositoryYamlFiles(dir: string = REPOSITORY_ROOT): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...repositoryYamlFiles(path));
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}
