import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // physics tests are CPU-bound: one file per core
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**'],
          // builds lib/ once for the CLI tests (they run bin/pbdkit.js)
          globalSetup: ['test/cli.setup.ts'],
          // a guard against hangs, not a speed test: CI machines differ 2× and may be shared
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
      {
        // the gallery in Debian's Chromium (playwright-core); the set-up installs Chromium
        // when it is missing, builds the site and serves it (see test/browser/setup.ts)
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/setup.ts'],
          // expect.poll waits up to 30 s by default (vitest's 1 s is too short for a loaded machine)
          expect: { poll: { timeout: 30_000 } },
          testTimeout: 240_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
