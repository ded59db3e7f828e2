import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian's chromium package, which `.ci/run` installs when it is missing. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** Names a browser goes by on PATH, looked for in this order after Debian's. */
const PATH_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** `FLAGOPS_CHROMIUM=none` says "run without a browser" (its suites skip). */
export const NO_CHROMIUM = 'none';

export type ChromiumLookup = { path: string } | { path: undefined; reason: string };

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The browser the page tests drive: `FLAGOPS_CHROMIUM`, then Debian's chromium, then a Chromium or
 * Chrome on PATH. The reason says what was looked for, so a skipped suite can say why.
 */
export function findChromium(env: Readonly<Record<string, string | undefined>>, debianChromium = DEBIAN_CHROMIUM): ChromiumLookup {
  const chosen = env['FLAGOPS_CHROMIUM'];
  if (chosen !== undefined && chosen !== '') {
    if (chosen === NO_CHROMIUM) return { path: undefined, reason: 'FLAGOPS_CHROMIUM=none' };
    return isExecutableFile(chosen) ? { path: chosen } : { path: undefined, reason: `FLAGOPS_CHROMIUM=${chosen} is not an executable file` };
  }
  if (isExecutableFile(debianChromium)) return { path: debianChromium };
  for (const dir of (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '')) {
    for (const name of PATH_NAMES) {
      const candidate = join(dir, name);
      if (isExecutableFile(candidate)) return { path: candidate };
    }
  }
  return { path: undefined, reason: `no Chromium at ${debianChromium} nor ${PATH_NAMES.join(', ')} on PATH, and FLAGOPS_CHROMIUM is not set` };
}
