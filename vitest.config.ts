import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['controller/**/*.test.ts', 'schemas/**/*.test.ts', 'examples/**/*.test.ts', 'web/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
