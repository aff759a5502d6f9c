/**
 * `mediagen mcp` driven by the SDK's client over stdio, as an agent would: the tools (one per
 * operation of the table, plus wait_for, download and price), a whole asset workflow on the local
 * instance ending in a real PNG inside the allowed directory, the session's credit cap (nothing
 * debited when it refuses), downloads refused outside the allowed directories, the read-only mode,
 * the resources, and the hosted target: its key never reaches a result or stderr.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "../../src/features/operations.js";
import { emptyHome } from "../helpers/cli.js";
import { newHome, run } from "../cli/helpers.js";
import { body, PNG_SIGNATURE, startSession, toolError, type Session } from "./helpers.js";

/** `assetStart` → `asset_start`: how an operation's tool is named (written out here, not imported). */
/** The text of a resource's first content (catalogs and schemas are text, never a blob). */
function resourceText(r: { contents: Array<{ text: string } | { blob: string }> }): string {
  const first = r.contents[0];
  if (!first || !("text" in first)) throw new Error("expected a text resource");
  return first.text;
}

const snake = (op: string) => op.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

async function balance(home: string): Promise<{ space: string; credits: number; ledger: number }> {
  const who = await run(["whoami", "--json"], { home });
  expect(who.exitCode, who.stderr).toBe(0);
  const w = who.json<{ space: { id: string }; balance: number }>();
  const ledger = await run(["local", "ledger", w.space.id, "--json"], { home });
  expect(ledger.exitCode, ledger.stderr).toBe(0);
  return { space: w.space.id, credits: w.balance, ledger: ledger.json<unknown[]>().length };
}

describe("mediagen mcp on the local instance", () => {
  let home: string;
  let allowed: string;
  let outside: string;
  let s: Session;

  beforeAll(async () => {
    home = newHome();
    allowed = path.join(emptyHome(), "agent-out");
    outside = emptyHome();
    s = await startSession(home, ["--allow-dir", allowed, "--max-credits", "5"]);
  });
  afterAll(async () => {
    await s?.close();
  });

  it("lists one tool per operation of the table, with its summary and input schema, plus wait_for, download and price", async () => {
    const { tools } = await s.client.listTools();
    const names = tools.map((t) => t.name);
    const ops = Object.keys(operations) as Array<keyof typeof operations>;
    expect(ops.length).toBeGreaterThan(10);
    for (const op of ops) {
      const tool = tools.find((t) => t.name === snake(op));
      expect(tool, `no tool for ${op}`).toBeDefined();
      expect(tool!.description).toContain(operations[op].summary);
      expect(tool!.description).toContain(operations[op].path);
      expect(tool!.inputSchema.type).toBe("object");
    }
    expect(names).toEqual(expect.arrayContaining(["wait_for", "download", "price"]));
    expect(names).toHaveLength(ops.length + 3);
    expect(new Set(names).size).toBe(names.length);
    // A path parameter is a required input of its tool.
    expect(tools.find((t) => t.name === "asset_status")!.inputSchema.required).toEqual(["assetId"]);
  });

  it("asset_start → wait_for (with progress) → download: a real PNG in the allowed directory; the start is within the budget", async () => {
    const before = await balance(home);
    const price = body(
      await s.client.callTool({ name: "price", arguments: { tool: "asset_start", arguments: { type: "image", model: "imgA-4", prompt: "a red fox at dawn" } } }),
    );
    expect(price).toMatchObject({ tool: "asset_start", exact: true, budget: { max_credits: 5, spent: 0, remaining: 5, within: true } });
    const cost = price.credits as number;
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeLessThanOrEqual(5);

    const started = await s.client.callTool({ name: "asset_start", arguments: { type: "image", model: "imgA-4", prompt: "a red fox at dawn" } });
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    const res = body(started) as { asset_ids: string[]; total_cost: number };
    expect(res.asset_ids).toHaveLength(1);
    expect(res.total_cost).toBe(cost);
    const id = res.asset_ids[0]!;

    const progress: Array<{ progress: number; message?: string }> = [];
    const waited = await s.client.callTool({ name: "wait_for", arguments: { id, timeout_seconds: 60 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(waited.isError, JSON.stringify(waited.content)).toBeFalsy();
    expect(body(waited)).toMatchObject({ kind: "asset", id, finished: true, state: "done", status: { asset_id: id, status: "completed", type: "image" } });
    // One notification per poll, numbered upward, naming the job.
    // (Their count and order before the answer are checked on raw pipes in protocol.test.ts.)
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    // (The SDK's client handles notifications a tick after responses: the last one may arrive after the result and be dropped.)
    for (const p of progress) expect(p.message).toMatch(new RegExp(`^asset ${id}: (generating|completed) \\(\\d+ s\\)$`));

    const saved = await s.client.callTool({ name: "download", arguments: { id } });
    expect(saved.isError, JSON.stringify(saved.content)).toBeFalsy();
    const file = body(saved).saved as string;
    expect(path.dirname(file)).toBe(fs.realpathSync(allowed));
    expect(path.basename(file)).toBe(`${id}.png`);
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(body(saved).bytes).toBe(bytes.length);
    // Into a subdirectory of the allowed one: created there.
    const sub = body(await s.client.callTool({ name: "download", arguments: { id, dir: "renders/day1" } })).saved as string;
    expect(sub).toBe(path.join(fs.realpathSync(allowed), "renders", "day1", `${id}.png`));
    // An existing file is not replaced unless asked.
    expect(toolError(await s.client.callTool({ name: "download", arguments: { id } }))).toMatchObject({ code: "file_exists" });
    expect(body(await s.client.callTool({ name: "download", arguments: { id, force: true } })).saved).toBe(file);

    const after = await balance(home);
    expect(after.credits).toBe(before.credits - cost);
    // The session remembers what it started: the history has the asset, with its saved file.
    const hist = await run(["history", "--json"], { home });
    expect(hist.json<Array<{ id: string; kind: string }>>()).toEqual(expect.arrayContaining([expect.objectContaining({ id, kind: "asset" })]));
  });

  it("--max-credits refuses a start that would exceed what is left, with the remaining budget, and nothing is debited", async () => {
    const before = await balance(home);
    const priced = body(
      await s.client.callTool({ name: "price", arguments: { tool: "asset_start", arguments: { type: "video", model: "vidA-3", prompt: "a red fox", duration: 8 } } }),
    );
    const remaining = (priced.budget as { remaining: number }).remaining;
    expect(priced.credits as number).toBeGreaterThan(remaining);
    expect(priced.budget).toMatchObject({ max_credits: 5, within: false });

    const r = await s.client.callTool({ name: "asset_start", arguments: { type: "video", model: "vidA-3", prompt: "a red fox", duration: 8 } });
    const err = toolError(r);
    expect(err.code).toBe("over_max_credits");
    expect(err).toMatchObject({ max_credits: 5, remaining, price: priced.credits });
    expect(err.message).toContain(`${remaining} credit`);
    expect(err.message).toContain("nothing was started");

    // A start whose price cannot be known before it starts is refused too (an export without a format).
    const unknown = toolError(await s.client.callTool({ name: "export_start", arguments: { video_id: "vid_whatever" } }));
    expect(unknown).toMatchObject({ code: "price_unknown", remaining });

    const after = await balance(home);
    expect(after).toEqual(before);
  });

  it("download refuses any directory outside --allow-dir: .., absolute paths, links that lead out", async () => {
    const { asset_ids } = body(await s.client.callTool({ name: "asset_start", arguments: { type: "image", model: "imgA-4", prompt: "a quiet lake" } })) as {
      asset_ids: string[];
    };
    const id = asset_ids[0]!;
    expect(body(await s.client.callTool({ name: "wait_for", arguments: { id } }))).toMatchObject({ finished: true });
    fs.symlinkSync(outside, path.join(allowed, "escape"));
    for (const dir of ["../elsewhere", "renders/../../elsewhere", outside, path.join(outside, "deeper"), "escape", "escape/deeper", "/etc"]) {
      const err = toolError(await s.client.callTool({ name: "download", arguments: { id, dir } }));
      expect(err, dir).toMatchObject({ code: "path_not_allowed", field: "dir" });
    }
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(path.join(path.dirname(allowed), "elsewhere"))).toBe(false);
    // A file where a directory is asked for: a clear error, not a crash.
    fs.writeFileSync(path.join(allowed, "a-file"), "x");
    expect(toolError(await s.client.callTool({ name: "download", arguments: { id, dir: "a-file" } }))).toMatchObject({ code: "invalid_value", field: "dir" });
    // An absolute path inside the allowed directory is fine.
    expect(body(await s.client.callTool({ name: "download", arguments: { id, dir: path.join(allowed, "abs") } })).saved).toBe(
      path.join(fs.realpathSync(allowed), "abs", `${id}.png`),
    );
  });

  it("errors are tool errors with the service's code and field", async () => {
    expect(toolError(await s.client.callTool({ name: "asset_status", arguments: { assetId: "0123456789abcdef01234567" } }))).toMatchObject({
      code: "asset_not_found",
      status: 404,
    });
    expect(toolError(await s.client.callTool({ name: "asset_start", arguments: { type: "image", prompt: "no model" } }))).toMatchObject({
      code: "missing_field",
      field: "model",
    });
    expect(toolError(await s.client.callTool({ name: "wait_for", arguments: { id: "what-is-this" } }))).toMatchObject({ code: "missing_field", field: "kind" });
  });

  it("serves the catalogs and the sequence plan's JSON Schema as resources", async () => {
    const { resources } = await s.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(["mediagen://catalog/models", "mediagen://catalog/voices", "mediagen://catalog/looks", "mediagen://schema/sequence-plan"]),
    );
    const models = JSON.parse(resourceText(await s.client.readResource({ uri: "mediagen://catalog/models" }))) as { models: Array<{ name: string }> };
    expect(models.models.map((m) => m.name)).toContain("imgA-4");
    const voices = JSON.parse(resourceText(await s.client.readResource({ uri: "mediagen://catalog/voices" }))) as unknown[];
    expect(voices.length).toBeGreaterThan(0);
    const looks = JSON.parse(resourceText(await s.client.readResource({ uri: "mediagen://catalog/looks" }))) as unknown[];
    expect(looks.length).toBeGreaterThan(0);
    const schema = JSON.parse(resourceText(await s.client.readResource({ uri: "mediagen://schema/sequence-plan" }))) as Record<string, unknown>;
    expect(schema.type).toBe("array");
  });

  it("stderr holds the session's talk; the local key is in no result and not on stderr", async () => {
    const key = fs.readFileSync(path.join(home, "local", "default.key"), "utf8").trim();
    expect(key.length).toBeGreaterThan(20);
    const listed = await s.client.callTool({ name: "folder_list", arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(s.stderr()).toContain("mediagen mcp: serving");
    expect(s.stderr()).not.toContain(key);
  });
});

describe("mediagen mcp: a whole video workflow on the local instance", () => {
  it("generation_start → wait_for → export_start → wait_for → download an MP4; a look; what the session spent is what the ledger debited", async () => {
    const home = newHome();
    const allowed = emptyHome();
    const s = await startSession(home, ["--allow-dir", allowed, "--max-credits", "50"]);
    try {
      const before = await balance(home);
      const args = { script: "Hello! This is a test.", voice_id: "vc_emma", avatar_id: "lk_maya_kitchen" };
      const priced = body(await s.client.callTool({ name: "price", arguments: { tool: "generation_start", arguments: args } }));
      const gen = await s.client.callTool({ name: "generation_start", arguments: args });
      expect(gen.isError, JSON.stringify(gen.content)).toBeFalsy();
      const job = body(gen) as { job_id: string; estimated_credits: number };
      expect(job.estimated_credits).toBe(priced.credits);
      const done = body(await s.client.callTool({ name: "wait_for", arguments: { id: job.job_id, timeout_seconds: 120 } }));
      expect(done).toMatchObject({ kind: "generation", finished: true, state: "done" });
      const videoId = (done.status as { result: { video_id: string } }).result.video_id;

      // A small custom size (free, like vertical): the workflow is the subject, not the format.
      const exportArgs = { video_id: videoId, format: "custom", width: 180, height: 320 };
      expect(body(await s.client.callTool({ name: "price", arguments: { tool: "export_start", arguments: exportArgs } }))).toMatchObject({ credits: 0, exact: true });
      const exp = body(await s.client.callTool({ name: "export_start", arguments: exportArgs })) as { job_id: string };
      expect(body(await s.client.callTool({ name: "wait_for", arguments: { id: exp.job_id, timeout_seconds: 120 } }))).toMatchObject({
        kind: "export",
        finished: true,
        state: "done",
      });
      const mp4 = body(await s.client.callTool({ name: "download", arguments: { id: exp.job_id, dir: "videos" } })).saved as string;
      expect(mp4).toBe(path.join(fs.realpathSync(allowed), "videos", `${exp.job_id}.mp4`));
      expect(fs.readFileSync(mp4).subarray(4, 8).toString("latin1")).toBe("ftyp");

      const look = body(await s.client.callTool({ name: "avatar_create", arguments: { prompt: "friendly barista, warm light" } })) as {
        avatar_id: string;
        look_id: string;
      };
      expect(body(await s.client.callTool({ name: "wait_for", arguments: { id: look.look_id } }))).toMatchObject({ kind: "look", finished: true });
      const pic = body(await s.client.callTool({ name: "download", arguments: { id: look.look_id } })).saved as string;
      expect(fs.readFileSync(pic).subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);

      const spent = (body(await s.client.callTool({ name: "price", arguments: { tool: "folder_create", arguments: {} } })).budget as { spent: number }).spent;
      const after = await balance(home);
      expect(spent).toBeGreaterThan(0);
      expect(before.credits - after.credits).toBeCloseTo(spent, 3);
    } finally {
      await s.close();
    }
  });
});

describe("mediagen mcp --read-only", () => {
  it("lists only the reads: no start, create, edit, duplicate or export tool, and refuses them by name", async () => {
    const home = newHome();
    const s = await startSession(home, ["--read-only"]);
    try {
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name);
      for (const op of Object.keys(operations) as Array<keyof typeof operations>) {
        const def = operations[op];
        const read = def.method === "GET" || op === "assetPricing";
        expect(names.includes(snake(op)), op).toBe(read);
      }
      expect(names.filter((n) => /start|create|edit|duplicate|generate/.test(n))).toEqual([]);
      expect(names).toEqual(expect.arrayContaining(["wait_for", "price"]));
      for (const t of tools.filter((x) => !["download"].includes(x.name))) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
      const before = await balance(home);
      expect(toolError(await s.client.callTool({ name: "asset_start", arguments: { type: "image", model: "imgA-4", prompt: "x" } }))).toMatchObject({
        code: "read_only",
      });
      expect(await balance(home)).toEqual(before);
      // Pricing is a read: the service's dry-run figure, with a note that nothing can start here.
      const dry = body(await s.client.callTool({ name: "asset_pricing", arguments: { model: "imgA-4" } })) as { total_cost: number };
      expect(
        body(await s.client.callTool({ name: "price", arguments: { tool: "asset_start", arguments: { type: "image", model: "imgA-4", prompt: "x" } } })),
      ).toMatchObject({
        credits: dry.total_cost,
        note: expect.stringContaining("read-only"),
      });
      // A look started by the CLI: wait_for finds its avatar in the history (`mediagen history`).
      const created = await run(["avatar", "create", "--prompt", "a sailor on deck", "--json"], { home });
      expect(created.exitCode, created.stderr).toBe(0);
      const { look_id } = created.json<{ avatar_id: string; look_id: string }>();
      expect(body(await s.client.callTool({ name: "wait_for", arguments: { id: look_id, timeout_seconds: 60 } }))).toMatchObject({
        kind: "look",
        id: look_id,
        finished: true,
      });
      // Downloads need --allow-dir.
      expect(toolError(await s.client.callTool({ name: "download", arguments: { id: "0123456789abcdef01234567" } }))).toMatchObject({ code: "path_not_allowed" });
    } finally {
      await s.close();
    }
  });
});

describe("mediagen mcp on the hosted target", () => {
  const KEY = "mg_live_" + "ab12".repeat(16);
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    // A service that echoes the key it was sent in its errors, and hands out a file: link.
    server = http.createServer((req, res) => {
      const p = new URL(req.url ?? "/", "http://x").pathname.replace(/^\/api\/public\/v1/, "");
      const json = (status: number, b: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(b));
      const auth = String(req.headers.authorization ?? "");
      if (p.startsWith("/asset/status/echo"))
        return json(403, { error: `key ${auth.slice(7)} lacks the plan`, details: [{ code: "plan_required", message: `sent: ${auth}` }] });
      if (p.startsWith("/asset/status/")) {
        const id = decodeURIComponent(p.slice("/asset/status/".length));
        return json(200, {
          asset_id: id,
          status: "completed",
          type: "image",
          url: "file:///etc/passwd",
          cost: 1,
          created_at: new Date(0).toISOString(),
          generation_params: { model: "m", prompt: "p" },
        });
      }
      json(404, { error: "Not found", details: [{ code: "not_found", message: "Not found" }] });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("the key in use never appears in a result, an error or stderr; file: links from the service are not copied", async () => {
    const home = newHome();
    const allowed = emptyHome();
    const s = await startSession(home, ["--allow-dir", allowed], { env: { MEDIAGEN_API_KEY: KEY }, globalArgs: ["--target", "hosted", "--base-url", base, "--debug"] });
    try {
      const r = await s.client.callTool({ name: "asset_status", arguments: { assetId: "echo-1" } });
      const err = toolError(r);
      expect(err).toMatchObject({ code: "plan_required", status: 403 });
      const all = JSON.stringify(r);
      expect(all).not.toContain(KEY);
      expect(all).not.toContain(KEY.slice(8));
      expect(all).toContain("[REDACTED]");

      const d = toolError(await s.client.callTool({ name: "download", arguments: { id: "0123456789abcdef01234567" } }));
      expect(d.code).toBe("unsafe_url");
      expect(fs.readdirSync(allowed)).toEqual([]);
    } finally {
      await s.close();
    }
    expect(s.stderr()).toContain("hosted target");
    expect(s.stderr()).not.toContain(KEY.slice(8));
  });
});
