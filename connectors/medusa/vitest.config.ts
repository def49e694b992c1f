import path from "node:path"
import { defineConfig } from "vitest/config"

export default defineConfig({
  // Fitroom's webhook verifier from this repository (as tsconfig.json's paths; a store installs it from npm)
  resolve: { alias: { "@fitroom/webhooks": path.resolve(__dirname, "../../packages/webhooks") } },
  test: {
    include: ["integration-tests/**/*.spec.ts"],
    globals: true, // Medusa's test runners use Jest's globals
    globalSetup: ["integration-tests/global-setup.ts"],
    setupFiles: ["integration-tests/setup.ts"],
    fileParallelism: false, // each file boots a Medusa application: one at a time on a small machine
    pool: "forks",
    testTimeout: 300_000, // a loaded machine: a builtin try-on can take minutes
    hookTimeout: 300_000,
  },
})
