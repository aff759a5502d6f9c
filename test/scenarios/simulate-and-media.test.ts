import { expect, it } from "vitest";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Engine } from "../../src/engine/engine.js";
import { forBothTargets } from "./harness.js";

/** Polls an asset until it leaves `generating` (the inline worker renders it). */
async function settle(engine: Engine, assetId: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await engine.assetStatus({ assetId });
    if (s.status !== "generating" && s.status !== "pending") return s;
    if (Date.now() > deadline) throw new Error(`asset ${assetId} still ${s.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function cheapestImageModel(engine: Engine): Promise<string> {
  const { models } = await engine.assetModels({ type: "image" });
  return [...models].sort((a, b) => a.base_cost! - b.base_cost!)[0]!.name;
}

forBothTargets("simulated failures and media URLs", (t) => {
  it("X-Local-Simulate reaches the job: it ends failed with the code asked for, and is refunded", async () => {
    const key = t.newKey({ credits: 10 });
    const engine = t.engineFor(key);
    const model = await cheapestImageModel(engine);
    const started = await engine.assetStart({ type: "image", model, prompt: "a lighthouse" }, { simulate: "fail" });
    const done = await settle(engine, started.asset_ids[0]!);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({ code: "generation_failed", message: expect.stringMatching(/simulated/i) });
    expect(done.url).toBeUndefined();
    expect(t.instance.spaceForKey(key)!.credits).toBe(10);
  });

  it("a completed asset's url serves the rendered file (file:// in process, a signed http URL when served)", async () => {
    const engine = t.engine();
    const model = await cheapestImageModel(engine);
    const started = await engine.assetStart({ type: "image", model, prompt: "a red square" });
    const done = await settle(engine, started.asset_ids[0]!);
    expect(done.status).toBe("completed");
    const url = done.url!;
    let bytes: Buffer;
    if (t.target === "local") {
      expect(url.startsWith("file://")).toBe(true);
      bytes = fs.readFileSync(fileURLToPath(url));
    } else {
      expect(url).toMatch(new RegExp(`^${t.baseUrl.replace("/api/public/v1", "")}/media/.+\\?exp=\\d+&sig=[0-9a-f]{64}$`));
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      bytes = Buffer.from(await res.arrayBuffer());
    }
    expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  });
});
