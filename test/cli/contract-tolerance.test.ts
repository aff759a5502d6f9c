/**
 * Answers the spec allows or leaves open never break the client (issue 21), against a stub hosted
 * service on 127.0.0.1: select settings with number or object values, a pending look without a
 * thumbnail, a pending export without current_step (or null), a persistent HTML 502 from a proxy,
 * and a 200 whose body fails the check (its real status in the --json error line).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../helpers/cli.js";
import { newHome } from "./helpers.js";

const KEY = `mk_live_${"b".repeat(64)}`;
type Answer = { status: number; body: unknown; html?: boolean };
/** "METHOD /path" → answers in turn (the last one repeats). */
const routes = new Map<string, Answer[]>();
let server: http.Server;
let base = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const p = (req.url ?? "").replace(/^\/api\/public\/v1/, "").split("?")[0]!;
    const queue = routes.get(`${req.method} ${p}`);
    req.resume();
    if (!queue?.length) return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found" }));
    const a = queue.length > 1 ? queue.shift()! : queue[0]!;
    if (a.html) return void res.writeHead(a.status, { "content-type": "text/html" }).end(String(a.body));
    res.writeHead(a.status, { "content-type": "application/json" }).end(JSON.stringify(a.body));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

const hosted = (args: string[]) =>
  runInProcess(["--target", "hosted", "--base-url", base, ...args], {
    home: newHome(),
    env: { MEDIAGEN_API_KEY: KEY, NO_COLOR: "1", HTTP_PROXY: undefined, HTTPS_PROXY: undefined },
  });

const look = {
  id: "lk_1",
  name: "Studio",
  place: "studio",
  accessories: [],
  action: "talking",
  emotion: "calm",
  selfie: false,
  format: "vertical",
  preview: null,
  status: "pending",
  model_available: ["standard"],
};

describe("answers the spec allows", () => {
  it("a select setting whose default and options are numbers, or whose options are objects", async () => {
    routes.set("GET /asset/models/m1", [
      {
        status: 200,
        body: {
          name: "m1",
          label: "M1",
          type: "image",
          provider: "p",
          tags: [],
          base_cost: 1,
          has_audio: false,
          required_plans: [],
          capabilities: { max_images: 1, min_images: 0 },
          restricted_countries: [],
          input_schema: { type: "object", properties: {} },
          settings: [
            { key: "steps", type: "select", label: "Steps", default_value: 20, affects_cost: true, options: [10, 20, 30] },
            {
              key: "style",
              type: "select",
              label: "Style",
              default_value: { value: "raw" },
              affects_cost: false,
              options: [
                { value: "raw", label: "Raw" },
                { value: "vivid", label: "Vivid" },
              ],
            },
          ],
        },
      },
    ]);
    const r = await hosted(["asset", "model", "m1"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("setting steps: select [10|20|30], default 20");
    expect(r.stdout).toContain("setting style: select [raw|vivid], default raw");
  });

  it("a pending look without thumbnail", async () => {
    routes.set("GET /avatar/av_1/look/lk_1", [
      {
        status: 200,
        body: {
          ...look,
          avatar_id: "av_1",
          avatar_name: "Ann",
          look_name: "Studio",
          gender: "female",
          age_range: "adult",
          ethnicity: "x",
          hair_color: "brown",
          error_message: null,
        },
      },
    ]);
    const r = await hosted(["avatar", "look", "av_1", "lk_1", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<{ status: string; thumbnail?: string }>()).toMatchObject({ status: "pending" });
    routes.set("GET /avatar/av_1", [
      {
        status: 200,
        body: { id: "av_1", name: "Ann", gender: "female", age: "30", age_range: "adult", ethnicity: "x", hair_color: "brown", looks: [look], created_at: null },
      },
    ]);
    const g = await hosted(["avatar", "get", "av_1"]);
    expect(g.exitCode, g.stderr).toBe(0);
  });

  it("a pending export without current_step, then with null: export --watch follows it to the end", async () => {
    routes.set("POST /export/start", [{ status: 201, body: { job_id: "ex_1", status: "pending", estimated_credits: 0 } }]);
    routes.set("GET /export/status/ex_1", [
      { status: 200, body: { job_id: "ex_1", status: "pending", progress: 0 } },
      { status: 200, body: { job_id: "ex_1", status: "processing", progress: 40, current_step: null } },
      {
        status: 200,
        body: {
          job_id: "ex_1",
          status: "completed",
          progress: 100,
          current_step: "render",
          result: { video_url: "https://cdn.test/v.mp4", thumbnail_url: "https://cdn.test/v.jpg", cost: 0, created_at: "2026-01-01T00:00:00Z" },
        },
      },
    ]);
    const r = await hosted(["export", "vid_1", "--watch", "--interval", "100ms", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<{ status: string }>().status).toBe("completed");
  });
});

describe("answers that are wrong, said cleanly", () => {
  it("a persistent HTML 502 from a proxy is a clean error, not raw HTML", async () => {
    const page = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";
    routes.set("GET /folder/list", [{ status: 502, body: page, html: true }]);
    const r = await hosted(["folder", "list", "--json"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).not.toMatch(/<html|<center|<\/?h1/i);
    expect(r.stderr).toContain('HTTP 502 with an HTML page instead of the service\'s JSON ("502 Bad Gateway")');
    expect(r.errorLine()).toMatchObject({ status: 502 });
  }, 30_000);

  it("a 200 whose body fails the check reports its real status in the --json error line", async () => {
    routes.set("GET /asset/status/as_1", [{ status: 200, body: { asset_id: "as_1", url: null } }]);
    const r = await hosted(["asset", "status", "as_1", "--json"]);
    expect(r.exitCode).toBe(1);
    expect(r.errorLine()).toMatchObject({ status: 200, code: "unexpected_response" });
  });
});
