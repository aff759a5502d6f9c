import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The child-process scripts (detached worker, TTS child) run from dist/, built by `npm test`.
    setupFiles: ["test/setup/built-entry-points.ts"],
    // The avatar catalog's pictures, drawn once per run and copied into each test home.
    globalSetup: ["test/setup/catalog-seed.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
