import { defineConfig } from "vitest/config";
import LongestFirst from "./test/setup/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The child-process scripts (detached worker, TTS child) run from dist/, built by `npm test`.
    setupFiles: ["test/setup/built-entry-points.ts", "test/setup/file-isolation.ts"],
    // One temp dir for the run, removed at its end; an environment without what costs every node
    // start and no test needs; the avatar catalog's pictures, drawn once per run and copied into each
    // test home.
    globalSetup: ["test/setup/run-tmpdir.ts", "test/setup/child-env.ts", "test/setup/catalog-seed.ts"],
    pool: "forks",
    // One worker process runs file after file without re-importing the CLI each time (a fork and a
    // module graph per file cost about a third of the suite's time); test/setup/file-isolation.ts
    // undoes what a file changes in the process.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll gives up after 1 s by default: on a loaded machine a page reload or a worker's next
    // step can take longer. A poll that passes returns at once, so a long limit costs nothing.
    expect: { poll: { timeout: 15_000 } },
    // Three workers on two cores: much of the suite waits on child processes (renders, serve, the
    // CLI's own processes) and on timers, so a third keeps both cores busy (idle, 2,807 tests: 242 s
    // with two, 217 s with three).
    maxWorkers: 3,
    // Longest files first, from the committed durations (a fresh clone has no record of a last run).
    sequence: { sequencer: LongestFirst },
  },
});
