import { relative } from 'node:path';

/** What the run found, decided once by the global setup and handed to every test worker. */
export interface TestEnvironment {
  /** Admin URL of the PostgreSQL server for tests, or why there is none. */
  postgres: { url: string; source: string } | { url: undefined; reason: string };
  /** The browser the page tests drive, or why there is none. */
  chromium: { path: string } | { path: undefined; reason: string };
}

/** Set (to 1) where every suite must run: a suite that would skip fails the run instead (CI). */
export const REQUIRE_ALL_SUITES_ENV = 'FLAGOPS_TEST_REQUIRE_ALL';

/** The mark a suite skipped for want of a service carries in its name; the closing report looks for it. */
export const NEEDS_POSTGRES = 'needs PostgreSQL';
export const NEEDS_CHROMIUM = 'needs Chromium';

/** Where the global setup leaves what it found for the closing report (same process). */
export const ENVIRONMENT_REPORT_ENV = 'FLAGOPS_TEST_ENVIRONMENT_REPORT';

export interface EnvironmentReport extends TestEnvironment {
  /** A server the run started itself. */
  started?: string;
}

/** A suite skipped for want of a service, as the reporter found it. */
export interface SkippedSuite {
  file: string;
  name: string;
}

const ENABLE = {
  [NEEDS_POSTGRES]: 'FLAGOPS_TEST_PG_URL=postgres://USER@HOST:5432/postgres npm test   (a server where USER may create databases)',
  [NEEDS_CHROMIUM]: 'sudo apt-get install -y chromium && npm test   (or FLAGOPS_CHROMIUM=/path/to/chrome npm test)',
} as const;

/** The run's closing lines: which services were started, which suites were skipped, why, and how to enable them. */
export function renderEnvironmentReport(report: EnvironmentReport, skipped: readonly SkippedSuite[], root: string): string[] {
  const lines: string[] = [];
  if (report.started !== undefined) lines.push(`PostgreSQL suites ran against ${report.started}.`);
  const groups: [typeof NEEDS_POSTGRES | typeof NEEDS_CHROMIUM, string | undefined][] = [
    [NEEDS_POSTGRES, report.postgres.url === undefined ? report.postgres.reason : undefined],
    [NEEDS_CHROMIUM, report.chromium.path === undefined ? report.chromium.reason : undefined],
  ];
  for (const [need, reason] of groups) {
    if (reason === undefined) continue;
    const files = [...new Set(skipped.filter((s) => s.name.endsWith(`[${need}]`)).map((s) => relative(root, s.file)))].sort();
    // A run of a few files may hold none of these suites: nothing to say then.
    if (files.length === 0) continue;
    lines.push(`Skipped ${files.length} test file${files.length === 1 ? '' : 's'} for want of ${need.replace(/^needs /, '')} (${reason}):`);
    for (const file of files) lines.push(`  ${file}`);
    lines.push(`  to run them: ${ENABLE[need]}`);
  }
  if (lines.length > (report.started !== undefined ? 1 : 0)) lines.push(`(${REQUIRE_ALL_SUITES_ENV}=1 turns these skips into a failed run, as CI sets it.)`);
  return lines;
}
