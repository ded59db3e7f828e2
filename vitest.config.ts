import { defineConfig } from 'vitest/config';
import { SkipReporter } from './controller/test-support/skip-reporter.js';

export default defineConfig({
  test: {
    include: ['controller/**/*.test.ts', 'schemas/**/*.test.ts', 'examples/**/*.test.ts', 'web/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Finds (or starts) PostgreSQL and a browser once; the last reporter names what it skipped.
    globalSetup: ['controller/test-support/test-global-setup.ts'],
    reporters: ['default', new SkipReporter()],
  },
});
