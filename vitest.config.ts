import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    // Deadlines, not measures: a test waits on events and fails at once when an assertion does, so
    // these only bound a hang. They leave room for a 2-core machine running other work beside the
    // suite (several times slower than quiet); a test that sets its own is heavier still.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
