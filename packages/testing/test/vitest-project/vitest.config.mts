import path from 'node:path';
import { defineConfig } from 'vitest/config';

const packages = path.resolve(import.meta.dirname, '..', '..', '..');

// @typemcp/* from the sources, as the repository's own tests do; a real project gets them from node_modules.
export default defineConfig({
  resolve: {
    alias: [{ find: /^@typemcp\/(core|testing)$/, replacement: `${packages}/$1/src/index.ts` }],
  },
  test: { include: ['*.vitest.ts'], root: import.meta.dirname },
});
