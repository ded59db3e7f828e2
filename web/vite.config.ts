import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/** The browser console: built into dist/web, which `flagops serve` serves at `/`. */
export default defineConfig({
  root: here('.'),
  base: '/',
  publicDir: false,
  // Preact's JSX runtime, without a plugin: esbuild compiles the JSX itself.
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: {
      // zod's sources carry /* @__PURE__ */ comments where Rollup can't use them; it drops them and says so.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules')) return;
        warn(warning);
      },
    },
  },
});
