import { describe, inject } from 'vitest';
import { NEEDS_CHROMIUM, NEEDS_POSTGRES, type TestEnvironment } from './skip-report.js';

declare module 'vitest' {
  export interface ProvidedContext {
    flagopsTestEnvironment: TestEnvironment;
  }
}

export function testEnvironment(): TestEnvironment {
  return inject('flagopsTestEnvironment');
}

/** The PostgreSQL admin URL for this run; only call it inside a suite declared with describeWithPostgres. */
export function testPostgresUrl(): string {
  const { postgres } = testEnvironment();
  if (postgres.url === undefined) throw new Error(`No PostgreSQL for tests: ${postgres.reason}`);
  return postgres.url;
}

export function testChromiumPath(): string {
  const { chromium } = testEnvironment();
  if (chromium.path === undefined) throw new Error(`No Chromium for tests: ${chromium.reason}`);
  return chromium.path;
}

/** `describe`, skipped (and named as such) when the run has no PostgreSQL. */
export function describeWithPostgres(name: string, body: () => void): void {
  if (testEnvironment().postgres.url === undefined) describe.skip(`${name} [${NEEDS_POSTGRES}]`, body);
  else describe(name, body);
}

/** `describe`, skipped (and named as such) when the run has no browser. */
export function describeWithChromium(name: string, body: () => void): void {
  if (testEnvironment().chromium.path === undefined) describe.skip(`${name} [${NEEDS_CHROMIUM}]`, body);
  else describe(name, body);
}
