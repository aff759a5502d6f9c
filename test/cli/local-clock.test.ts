/**
 * `mediagen local clock advance|freeze|reset|show` against a running `serve` of the same home:
 * `advance 8d` expires an export's link (403 "This media link has expired"), `advance 1m` opens a
 * new rate window, `created_at` follows the clock, `freeze` stops it and `reset` brings it back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, startServe, type ServeChild } from "../http/serve-child.js";
import { newHome, run } from "./helpers.js";

const DAY = 86_400_000;

describe("local clock under serve", () => {
  let home: string;
  let serve: ServeChild;
  const keys: string[] = [];
  const call = (key: string, method: string, p: string, body?: unknown) =>
    fetch(`${serve.baseUrl}${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const clock = async (...args: string[]) => {
    const r = await run(["local", "clock", ...args, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    return r.json<{ offset_ms: number; frozen_at: number | null; now: string }>();
  };

  beforeAll(async () => {
    home = newHome();
    // The service's limit: a test below spends a window of it (the helpers' own is never met).
    serve = await startServe(childEnv(home, { MEDIAGEN_LOCAL_RATE_LIMIT: "100" }));
    for (let i = 0; i < 3; i++) {
      keys.push((await run(["local", "keys", "create", "--plan", "PRO", "--credits", "100", "--json"], { home })).json<{ api_key: string }>().api_key);
    }
  }, 30_000);
  afterAll(async () => {
    await serve?.stop();
  });

  async function poll<T extends { status: string }>(key: string, p: string): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const s = (await (await call(key, "GET", p)).json()) as T;
      if (s.status === "completed" || s.status === "failed") return s;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${p} did not finish`);
  }

  it("advance 8d expires an export link: 403, the link's own answer", async () => {
    const key = keys[0]!;
    const gen = (await (
      await call(key, "POST", "/generation/start", {
        sequence_plan: [{ sequences: [{ text: null, duration_ms: 1000 }] }],
        format: "custom",
        width: 64,
        height: 64,
      })
    ).json()) as { job_id: string };
    const done = await poll<{ status: string; result: { video_id: string } }>(key, `/generation/status/${gen.job_id}`);
    expect(done.status, JSON.stringify(done)).toBe("completed");
    const exp = (await (await call(key, "POST", "/export/start", { video_id: done.result.video_id })).json()) as { job_id: string };
    const finished = await poll<{ status: string; result: { video_url: string } }>(key, `/export/status/${exp.job_id}`);
    expect(finished.status, JSON.stringify(finished)).toBe("completed");
    const link = finished.result.video_url;
    expect((await fetch(link)).status).toBe(200);

    const moved = await clock("advance", "8d");
    expect(moved.offset_ms).toBe(8 * DAY);
    const stale = await fetch(link);
    expect(stale.status).toBe(403);
    expect(await stale.json()).toMatchObject({ details: [{ code: "forbidden", message: "This media link has expired" }] });
    // A status read after the 7 days hands out an already stale link, as documented.
    const again = (await (await call(key, "GET", `/export/status/${exp.job_id}`)).json()) as { result: { video_url: string } };
    expect((await fetch(again.result.video_url)).status).toBe(403);
    await clock("reset");
    expect((await fetch(link)).status).toBe(200);
  }, 120_000);

  it("advance 1m opens a new rate window", async () => {
    const key = keys[1]!;
    let last: Response | undefined;
    for (let i = 0; i < 101; i++) last = await call(key, "GET", "/folder/list");
    expect(last!.status).toBe(429);
    const reset = Number(last!.headers.get("x-ratelimit-reset"));
    await clock("advance", "1m");
    const next = await call(key, "GET", "/folder/list");
    expect(next.status).toBe(200);
    expect(next.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(Number(next.headers.get("x-ratelimit-reset"))).toBeGreaterThan(reset);
    await clock("reset");
  });

  it("created_at follows the clock; freeze stops it, advance still moves it, reset returns to real time", async () => {
    const key = keys[2]!;
    const folder = async (name: string) => Date.parse(((await (await call(key, "POST", "/folder/create", { name })).json()) as { created_at: string }).created_at);
    await clock("advance", "2d");
    const ahead = await folder("ahead");
    expect(ahead - Date.now()).toBeGreaterThan(2 * DAY - 60_000);

    const frozen = await clock("freeze");
    expect(frozen.frozen_at).not.toBeNull();
    const a = await folder("frozen a");
    await new Promise((r) => setTimeout(r, 30));
    const b = await folder("frozen b");
    expect(b).toBe(a);
    const moved = await clock("advance", "1h");
    expect(moved.frozen_at! - frozen.frozen_at!).toBe(3_600_000);
    expect(await folder("frozen later")).toBe(a + 3_600_000);

    const back = await clock("reset");
    expect(back).toMatchObject({ offset_ms: 0, frozen_at: null });
    expect(Math.abs((await folder("now")) - Date.now())).toBeLessThan(60_000);
  });

  it("the admin path moves the clock too; a clock that would go back is refused", async () => {
    const origin = new URL(serve.baseUrl).origin;
    const r = await fetch(`${origin}/_mediagen/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ advance: "90s" }) });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { offset_ms: number }).offset_ms).toBe(90_000);
    expect((await clock("show")).offset_ms).toBe(90_000);
    await clock("reset");
    const bad = await run(["local", "clock", "advance", "-5m", "--json"], { home });
    expect(bad.exitCode).toBe(2);
    const zero = await run(["local", "clock", "advance", "0s", "--json"], { home });
    expect(zero.exitCode).toBe(2);
    expect(zero.errorLine()?.message).toMatch(/only moves forward/);
  });
});
