/** `mediagen serve` stops cleanly: exit 0, requests refused afterwards, no job left holding a lease. */
import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openLocalInstance } from "../../src/features/local.js";
import { assertBuilt, childEnv, createKey, startServe } from "./serve-child.js";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

function freshHome(): string {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  homes.push(h);
  return h;
}

describe("serve shutdown", () => {
  it("on SIGTERM with jobs in flight, finishes or hands back every job and exits 0", async () => {
    assertBuilt();
    const home = freshHome();
    const env = childEnv(home);
    const serve = await startServe(env);
    const key = await createKey(env, "PRO", 100);
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const models = (await (await fetch(`${serve.baseUrl}/asset/models?type=image`, { headers: auth })).json()) as { models: { name: string; base_cost: number }[] };
    const model = [...models.models].sort((a, b) => a.base_cost - b.base_cost)[0]!.name;
    const started = await fetch(`${serve.baseUrl}/asset/start`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ type: "image", model, prompt: "shutdown test", generation_count: 4 }),
    });
    expect(started.status).toBe(201);
    const { asset_ids } = (await started.json()) as { asset_ids: string[] };

    expect(await serve.stop("SIGTERM")).toBe(0);
    expect(serve.stderr()).toContain("Stopped.");

    const instance = openLocalInstance({ home, worker: "none" });
    try {
      const jobs = instance.db.prepare("SELECT status, lease_owner FROM jobs").all() as { status: string; lease_owner: string | null }[];
      expect(jobs.length).toBeGreaterThanOrEqual(asset_ids.length);
      for (const j of jobs) {
        expect(j.status).not.toBe("running");
        if (j.status === "queued") expect(j.lease_owner).toBeNull();
      }
      // Whatever was handed back runs to completion on the next worker.
      await instance.runUntilIdle(15_000);
      const engine = instance.engine(key);
      for (const id of asset_ids) expect((await engine.assetStatus({ assetId: id })).status).toBe("completed");
    } finally {
      await instance.close();
    }
  });

  it("on SIGINT exits 0 and stops listening", async () => {
    assertBuilt();
    const serve = await startServe(childEnv(freshHome()));
    expect(await serve.stop("SIGINT")).toBe(0);
    await expect(fetch(`${serve.baseUrl}/folder/list`)).rejects.toThrow();
  });
});
