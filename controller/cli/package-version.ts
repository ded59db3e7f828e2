import { readFileSync } from 'node:fs';

/**
 * The version in flagops' own package.json. Found by walking up from this module, because it runs both
 * from the sources (controller/cli) and from the build (dist/controller/cli).
 */
export function packageVersion(): string {
  for (let dir = new URL('./', import.meta.url); ; ) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'flagops' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No package.json here (or not ours): keep walking up.
    }
    const parent = new URL('../', dir);
    if (parent.href === dir.href) throw new Error("flagops' package.json was not found above its modules.");
    dir = parent;
  }
}
