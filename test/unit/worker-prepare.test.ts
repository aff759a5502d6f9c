/**
 * A worker that cannot load its job kinds (a module that failed to load stays failed in its process:
 * Node 20's loader can fail concurrent imports with "request for 'node:fs' is not in cache") must not
 * sit on the queue for ever without a word: a detached worker says why in worker.log and exits, so
 * the next command starts a fresh process; a worker inside serve says it once. The features load one
 * at a time, which is what avoids that loader failure.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadLocalParts } from "../../src/features/local.js";
import type { LocalParts } from "../../src/local/types.js";
import { runDetachedWorker } from "../../src/local/worker-main.js";
import { openTestInstance, tempHome, waitFor } from "../helpers/local.js";

const LOADER_ERROR = "request for 'node:fs' is not in cache";

/** The real parts, whose last step (loading the job kinds) fails as Node's loader did. */
async function failingParts(): Promise<LocalParts> {
  const loaded = await loadLocalParts();
  return { ...loaded, jobKinds: {}, load: () => Promise.reject(new Error(LOADER_ERROR)) };
}

describe("a worker whose job kinds do not load", () => {
  it("exits when detached, saying why in worker.log, and leaves the job queued for the next worker", async () => {
    const parts = await failingParts();
    const home = tempHome();
    // A queued job, as a command leaves it before it kicks the worker.
    const seed = openTestInstance({ home, worker: "none" });
    await seed.api.assetStart({ type: "image", model: "imgA-4", prompt: "waits for a worker" });
    await seed.close();

    const code = await runDetachedWorker(["--home", home], (o) => openTestInstance({ ...o, home, parts }));
    expect(code).toBe(1);
    const log = fs.readFileSync(path.join(home, "local", "worker.log"), "utf8");
    expect(log).toContain(`loading the job kinds failed (${LOADER_ERROR}); this worker exits, the next command starts a new one`);

    const after = openTestInstance({ home, worker: "none" });
    expect(after.db.prepare("SELECT status FROM jobs").all()).toEqual([{ status: "queued" }]);
    expect(after.db.prepare("SELECT COUNT(*) AS n FROM workers").get()).toEqual({ n: 0 });
    await after.close();
  });

  it("says so once when inline (serve), however many polls try again", async () => {
    const parts = await failingParts();
    const lines: string[] = [];
    const t = openTestInstance({ worker: "inline", parts, log: (line) => lines.push(line) });
    await t.api.assetStart({ type: "image", model: "imgA-4", prompt: "waits for a worker" });
    await waitFor(() => lines.length > 0);
    // Several more polls (200 ms apart) fail the same way; the line is not repeated.
    await new Promise((r) => setTimeout(r, 700));
    expect(lines).toEqual([`the background worker cannot load its job kinds (${LOADER_ERROR}); queued jobs wait until this process restarts`]);
    expect(t.db.prepare("SELECT status FROM jobs").all()).toEqual([{ status: "queued" }]);
    await t.close();
  });
});
