/**
 * A hosted start answered with more (or fewer) ids than generations asked for is an unexpected
 * response (exit 1, said before anything reads the ids): a 1-generation start answered with 10,000
 * ids once made 10,000 history lines and 15,586 requests.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeServer, type FakeServer } from "../unit/hosted-fakes.js";
import { newHome, run } from "./helpers.js";

let s: FakeServer;
beforeAll(async () => {
  s = await fakeServer((_n, seen) => {
    if (seen.url.endsWith("/asset/start")) {
      const asked = (JSON.parse(seen.body) as { generation_count?: number }).generation_count ?? 1;
      const n = asked === 1 ? 10_000 : asked;
      const ids = Array.from({ length: n }, (_, i) => i.toString(16).padStart(24, "0"));
      return { status: 201, body: { asset_ids: ids, status: "generating", count: n, cost_per_generation: 1, total_cost: n } };
    }
    return { status: 404, body: { error: "Not found", details: [{ code: "asset_not_found", message: "no" }] } };
  });
});
afterAll(() => s.close());

describe("asset start on the hosted target", () => {
  it("refuses 10,000 ids for one generation: exit 1, one request, no history lines for them", async () => {
    const home = newHome();
    const env = { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: `${s.url}/api/public/v1`, MEDIAGEN_API_KEY: "mg_live_" + "a".repeat(64) };
    const before = s.seen.length;
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "x", "--watch", "--json"], { home, env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/asset_ids has 10000 ids for a start of 1 generation/);
    expect(s.seen.length - before).toBe(1);
    const history = path.join(home, "history.jsonl");
    const lines = fs.existsSync(history) ? fs.readFileSync(history, "utf8").trim().split("\n").filter(Boolean) : [];
    expect(lines.length).toBeLessThanOrEqual(1);
  });

  it("takes a start whose ids match the count", async () => {
    const home = newHome();
    const env = { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: `${s.url}/api/public/v1`, MEDIAGEN_API_KEY: "mg_live_" + "a".repeat(64) };
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "x", "--count", "2", "--json"], { home, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<{ asset_ids: string[] }>().asset_ids).toHaveLength(2);
  });
});
