/**
 * Issue 11, the hosted-facing items: keys of any live prefix and redaction, unknown commands, the
 * hosted target's refusals (local files, --simulate), the rate-limit notice on both targets, one
 * deadline per request, and what a POST that may have landed says. In process against fake services
 * on 127.0.0.1 (test/unit/hosted-fakes.ts); each test failed before its fix.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome, run, startInProcess, type RunResult } from "./helpers.js";
import { fakeServer, type FakeServer, type Script } from "../unit/hosted-fakes.js";
import { openTestInstance } from "../helpers/local.js";

const HEX = "0123456789abcdef".repeat(4);
/** A key of another live prefix than the local instance's (the spec fixes "a live prefix", not which). */
const SK_KEY = `sk_live_${HEX}`;
const MG_KEY = `mg_live_${"5c".repeat(32)}`;

// Closed when the file ends, not after each test: the waiting tests below run at once (each on its
// own servers), and one test's end must not close another's server.
const servers: FakeServer[] = [];
afterAll(async () => {
  while (servers.length) await servers.pop()!.close();
});

async function serve(script: Script): Promise<FakeServer> {
  const s = await fakeServer(script);
  servers.push(s);
  return s;
}

/** `mediagen --target hosted --base-url <fake> <args>` with a key. */
function hosted(s: FakeServer, args: string[], env: Record<string, string> = {}, key = MG_KEY): Promise<RunResult> {
  return run(["--target", "hosted", "--base-url", s.url, ...args], { home: newHome(), env: { MEDIAGEN_API_KEY: key, ...env } });
}

const asset = (id: string, status = "generating") => ({
  asset_id: id,
  status,
  type: "image",
  cost: 1,
  created_at: new Date(0).toISOString(),
  generation_params: { model: "m", prompt: "p" },
});
const FOLDERS = { status: 200, body: { folders: [] } };

/** Every text the user saw. */
const seen = (r: RunResult) => r.stdout + r.stderr;

describe("keys: any <prefix>_live_<64 hex>, never printed", () => {
  it("auth login accepts a key of another live prefix", async () => {
    const r = await run(["auth", "login", "--with-key", "--json"], { home: newHome(), input: SK_KEY });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ key: `sk_live_…${SK_KEY.slice(-4)}` });
    expect(seen(r)).not.toContain(HEX.slice(0, 24));
  });

  it("auth login still refuses what is not a key", async () => {
    const r = await run(["auth", "login", "--with-key"], { home: newHome(), input: "sk_live_123" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/<prefix>_live_/);
  });

  it.each([
    ["a live key of another prefix", SK_KEY],
    ["a key of no known format", "whatever-secret-token-42"],
  ])("auth status: a 401 that echoes %s never shows it, with or without --debug", async (_n, key) => {
    const s = await serve((_i, req) => {
      const sent = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
      return { status: 401, body: { error: `Invalid API key ${sent}`, details: [{ code: "invalid_api_key", message: `key ${sent} (Bearer ${sent}) is unknown` }] } };
    });
    for (const extra of [[], ["--debug"]]) {
      for (const json of [[], ["--json"]]) {
        const r = await hosted(s, ["auth", "status", ...json, ...extra], {}, key);
        expect(r.exitCode, r.stderr).toBe(3);
        expect(seen(r)).not.toContain(key.slice(4, 20));
        expect(seen(r)).toContain("[REDACTED]");
      }
      const call = await hosted(s, ["folder", "list", "--json", ...extra], {}, key);
      expect(call.exitCode).toBe(3);
      expect(seen(call)).not.toContain(key.slice(4, 20));
    }
  });
});

describe("unknown commands are usage errors, with or without --help", () => {
  it.each([
    [["generat", "--help"], "generate"],
    [["generat"], "generate"],
    [["nonsense", "--help"], null],
    [["--json", "fodler", "list", "--help"], "folder"],
    [["asset", "strat", "--help"], "start"],
    [["local", "keys", "creat", "-h"], "create"],
  ])("mediagen %j → exit 2 naming the nearest command", async (args, near) => {
    const r = await run(args as string[], { home: newHome() });
    expect(r.exitCode, r.stdout).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/unknown command '/);
    if (near) expect(r.stderr).toContain(near);
  });

  it.each([[["--help"]], [["asset", "--help"]], [["asset", "start", "--help"]], [["--target", "local", "local", "keys", "--help"]], [["help", "asset"]]])(
    "mediagen %j still prints help, exit 0",
    async (args) => {
      const r = await run(args as string[], { home: newHome() });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain("Usage:");
    },
  );
});

describe("the hosted target takes public URLs only, and never --simulate", () => {
  let dir: string;
  let img: string;
  let plan: string;
  beforeAll(() => {
    dir = newHome();
    img = path.join(dir, "fox.jpg");
    fs.writeFileSync(img, "jpg");
    fs.writeFileSync(path.join(dir, "speech.mp3"), "mp3");
    plan = path.join(dir, "plan.json");
    fs.writeFileSync(plan, JSON.stringify([{ voice_id: "vc_emma", sequences: [{ text: "Hello there.", look_id: "lk_1", media: { url: "fox.jpg", show: "full" } }] }]));
  });
  const start = ["asset", "start", "--type", "video", "--model", "m", "--prompt", "p"];

  it.each([
    ["--ref", () => [...start, "--ref", img]],
    ["--ref", () => [...start, "--ref", "fox.jpg"]],
    ["--ref", () => [...start, "--ref", `file://${img}`]],
    ["--start-image", () => [...start, "--start-image", img]],
    ["--source-video", () => [...start, "--source-video", "./clip.mp4"]],
    ["--element", () => [...start, "--element", `hero=https://e.com/a.png,${img}`]],
    ["--image", () => ["avatar", "create", "--name", "Fox", "--image", img]],
    ["--element", () => ["avatar", "create", "--prompt", "a fox", "--element", img]],
    ["--image", () => ["avatar", "edit", "--avatar", "a1", "--look", "l1", "--prompt", "p", "--image", img]],
    ["--voice-url", () => ["generate", "--voice-url", path.join(dir, "speech.mp3"), "--avatar", "lk_1"]],
    ["--avatar-url", () => ["generate", "--avatar-url", img, "--voice", "vc_1", "--script", "Hi."]],
    ["--media-url", () => ["generate", "--prompt", "p", "--duration", "30", "--media-url", img]],
    ["--plan", () => ["generate", "--plan", plan]],
  ])("%s with a local path: exit 2 naming the flag, nothing sent", async (flag, args) => {
    const s = await serve(() => ({ status: 201, body: {} }));
    const r = await hosted(s, [...args(), "--json"]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.errorLine()).toMatchObject({ field: flag });
    expect(r.stderr).toMatch(/public/);
    expect(s.seen).toEqual([]);
  });

  it("a public URL and asset:/avatar: references are sent as they are", async () => {
    const s = await serve(() => ({ status: 201, body: { asset_ids: ["a1"], status: "generating", count: 1, cost_per_generation: 1, total_cost: 1 } }));
    const r = await hosted(s, [...start, "--ref", "https://e.com/fox.jpg", "--ref", "asset:abc", "--start-image", "avatar:av1", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(s.seen[0]!.body)).toMatchObject({ references: [{ url: "https://e.com/fox.jpg" }, { asset_id: "abc" }], start_image: { avatar_id: "av1" } });
  });

  it("each media flag's help says the hosted service needs public URLs", async () => {
    const startHelp = (await run(["asset", "start", "--help"])).stdout;
    const avatarHelp = (await run(["avatar", "create", "--help"])).stdout;
    const generateHelp = (await run(["generate", "--help"])).stdout;
    for (const [text, flag] of [
      [startHelp, "--ref"],
      [startHelp, "--start-image"],
      [startHelp, "--element"],
      [avatarHelp, "--image"],
      [generateHelp, "--voice-url"],
      [generateHelp, "--media-url"],
    ] as const) {
      // The option's own entry: from its line to the next option's.
      const entry = new RegExp(`\\n\\s+${flag} [\\s\\S]*?(?=\\n\\s+-)`).exec(text)?.[0] ?? "";
      expect(entry.replace(/\s+/g, " "), flag).toMatch(/hosted: public URLs only/);
    }
  });

  it.each([
    [["asset", "start", "--type", "image", "--model", "m", "--prompt", "p", "--simulate", "fail"]],
    [["avatar", "create", "--prompt", "a fox", "--simulate", "fail"]],
    [["avatar", "edit", "--avatar", "a1", "--look", "l1", "--prompt", "p", "--simulate", "fail"]],
    [["generate", "--prompt", "p", "--duration", "30", "--simulate", "fail"]],
    [["script", "--prompt", "p", "--simulate", "fail:X"]],
  ])("%j on the hosted target: exit 2, nothing sent (it would start a real, paid job)", async (args) => {
    const s = await serve(() => ({ status: 201, body: {} }));
    const r = await hosted(s, [...args, "--json"]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.errorLine()).toMatchObject({ field: "--simulate" });
    expect(r.stderr).toMatch(/local/);
    expect(s.seen).toEqual([]);
  });

  it("voice list --resources --only-public does not send onlyPublic", async () => {
    const s = await serve(() => ({ status: 200, body: [] }));
    const r = await hosted(s, ["voice", "list", "--resources", "--only-public", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(s.seen[0]!.url).toBe("/api/public/v1/resources/voices");
    expect(r.stderr).toMatch(/--only-public.*ignored/);
  });

  it("asset price --duration 4.2: exit 2 naming the flag, nothing sent (the spec's duration is an integer)", async () => {
    const s = await serve(() => ({ status: 200, body: {} }));
    const r = await hosted(s, ["asset", "price", "--model", "m", "--duration", "4.2", "--json"]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.errorLine()).toMatchObject({ field: "--duration" });
    expect(s.seen).toEqual([]);
  });
});

// Each test waits out its own window on its own server or instance: they wait at the same time.
describe.concurrent("rate limited: said on stderr, on both targets", () => {
  const limited = (resetInS: number) => ({
    status: 429,
    body: { error: "Rate limit exceeded. Maximum 100 requests per minute.", details: [{ code: "rate_limit_exceeded", message: "slow down" }] },
    headers: { "X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": String(Math.ceil(Date.now() / 1000) + resetInS) },
  });

  it("hosted: human lines on stderr, at most one per wait (a later window is said again); stdout is the data", async () => {
    const s = await serve((n) => (n < 2 ? limited(1) : FOLDERS));
    const r = await hosted(s, ["folder", "list"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const said = r.stderr.match(/rate limited by the service; retrying in \d+ s/g)?.length ?? 0;
    expect(said).toBeGreaterThanOrEqual(1);
    expect(said).toBeLessThanOrEqual(2);
    expect(r.stdout).not.toMatch(/rate/);
  });

  it("hosted --json: one NDJSON event on stderr, stdout parses", async () => {
    const s = await serve((n) => (n === 0 ? limited(1) : FOLDERS));
    const r = await hosted(s, ["folder", "list", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toEqual({ folders: [] });
    const events = r.stderr.split("\n").filter((l) => l.includes("rate_limited"));
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!)).toEqual({ event: "rate_limited", retry_in_s: expect.any(Number) });
  });

  it("local: the instance's 429 is announced the same way", async () => {
    // A window long enough that the CLI's request still falls in it on a loaded machine (with 1 s,
    // a slow start of the run let the window pass and no 429 came); the CLI then waits it out.
    const t = openTestInstance({ worker: "none", rateLimit: { limit: 1, windowMs: 3_000 } });
    try {
      await t.api.folderList({});
      const r = await run(["folder", "list", "--json"], { home: t.home, engine: async () => t.engine(t.key) });
      expect(r.exitCode, r.stderr).toBe(0);
      const events = r.stderr.split("\n").filter((l) => l.includes("rate_limited"));
      expect(events.map((l) => JSON.parse(l))).toEqual([{ event: "rate_limited", retry_in_s: expect.any(Number) }]);
    } finally {
      await t.close();
    }
  });
});

// Each test waits for its own deadline on its own hanging server: they wait at the same time.
describe.concurrent("one deadline per request: --request-timeout / MEDIAGEN_REQUEST_TIMEOUT", () => {
  // A deadline of 1 s (2 s before: the same code, half the wait), bounded at 2.5 times it as before.
  it.each([
    ["--request-timeout 1", ["--request-timeout", "1"], {}],
    ["MEDIAGEN_REQUEST_TIMEOUT=1", [], { MEDIAGEN_REQUEST_TIMEOUT: "1" }],
  ])("%s: a GET to a server that never answers fails in about 1 s, retries included", async (_n, flag, env) => {
    const s = await serve(() => "hang");
    const t0 = Date.now();
    const r = await hosted(s, [...flag, "folder", "list", "--json"], env);
    expect(Date.now() - t0).toBeLessThan(2_500);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.errorLine()).toMatchObject({ code: "request_timeout" });
    expect(r.stderr).toMatch(/no answer .*within 1 s/i);
  });

  it("the flag beats the variable; a bad value is a usage error", async () => {
    const s = await serve(() => "hang");
    const t0 = Date.now();
    const r = await hosted(s, ["--request-timeout", "1", "folder", "list"], { MEDIAGEN_REQUEST_TIMEOUT: "30" });
    expect(r.exitCode).toBe(1);
    expect(Date.now() - t0).toBeLessThan(4_000);
    for (const [args, env] of [
      [["--request-timeout", "soon"], {}],
      [["--request-timeout", "0"], {}],
      [[], { MEDIAGEN_REQUEST_TIMEOUT: "-3" }],
    ] as const) {
      const bad = await hosted(s, [...args, "folder", "list", "--json"], env);
      expect(bad.exitCode, bad.stderr).toBe(2);
    }
  });
});

describe("a POST that may have landed says so, and how to check", () => {
  it("a 5xx after POST /folder/create: may have been received; check with folder list", async () => {
    const s = await serve(() => ({ status: 502, body: { error: "Bad gateway" } }));
    const r = await hosted(s, ["folder", "create", "--name", "Clips"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/may have been received/);
    expect(r.stderr).toContain("mediagen folder list");
    expect(s.seen).toHaveLength(1);
  });

  it("a non-JSON 2xx after POST /asset/start: may have been received, and how to check", async () => {
    const s = await serve(() => ({ status: 201, raw: "<html>ok</html>" }));
    const r = await hosted(s, ["asset", "start", "--type", "image", "--model", "m", "--prompt", "p", "--json"]);
    expect(r.exitCode).toBe(1);
    expect(r.errorLine()).toMatchObject({ code: "unexpected_response" });
    expect(r.stderr).toMatch(/may have been received/);
    expect(r.stderr).toMatch(/dashboard/);
  });

  it("an error answering a GET says nothing of the kind", async () => {
    const s = await serve(() => ({ status: 404, body: { error: "Asset not found", details: [{ code: "asset_not_found", message: "Asset not found" }] } }));
    const r = await hosted(s, ["asset", "status", "x1"]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).not.toMatch(/may have been received/);
  });

  it("Ctrl-C while a POST is in flight: exit 130, and what was in flight", async () => {
    const s = await serve(() => "hang");
    const p = startInProcess(["--target", "hosted", "--base-url", s.url, "asset", "start", "--type", "image", "--model", "m", "--prompt", "p"], {
      home: newHome(),
      env: { MEDIAGEN_API_KEY: MG_KEY },
    });
    for (let i = 0; i < 100 && s.seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(s.seen).toHaveLength(1);
    p.interrupt();
    const r = await p.result;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toContain("POST /asset/start");
    expect(r.stderr).toMatch(/may have been received/);
  });
});

describe("a plain GET is unaffected", () => {
  it("asset status on the hosted target still works", async () => {
    const s = await serve(() => ({ status: 200, body: asset("x1", "completed") }));
    const r = await hosted(s, ["asset", "status", "x1", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
  });
});
