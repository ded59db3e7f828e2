import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.flagops/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    files: ['eslint.config.js', 'vitest.config.ts', 'web/vite.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // process.env is read in one place: controller/main.ts (and scripts that are their own entry points).
    files: ['controller/**/*.ts'],
    ignores: ['controller/main.ts', '**/*.test.ts', 'controller/test-support/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration in controller/main.ts only.' }],
    },
  },
  {
    // The web console reaches the console over HTTP only: it shares schemas/ and, of the server's code,
    // only the pure diff (and the equality it uses), so a review page and the plan describe a change alike.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    ignores: ['web/vite.config.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)controller/(?!core/(diff|json-equal)\\.js$)',
              message: 'The web console imports, of controller/, only core/diff.js and core/json-equal.js.',
            },
            { group: ['node:*', 'fastify', 'better-sqlite3', 'simple-git', 'chokidar'], message: 'The web console runs in a browser.' },
          ],
        },
      ],
    },
  },
  {
    files: ['controller/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['fastify', 'better-sqlite3', 'simple-git', 'chokidar', 'node:fs', 'node:fs/*', 'fs', 'node:child_process', 'node:http', '**/store/**', '**/console/**', '**/source/**', '**/reconcile/**', '**/bridge/**', '**/cli/**', '**/web/**'] }],
    },
  },
);
