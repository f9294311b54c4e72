import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // builds lib/ once for the CLI tests (they run bin/pbdkit.js)
    globalSetup: ['test/cli.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // physics tests are CPU-bound: one file per core
    maxWorkers: 2,
  },
});
