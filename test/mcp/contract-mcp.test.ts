/**
 * The MCP tools judge a request by the same contract before it is sent (issue 21): on the hosted
 * target, a forbidden input is a tool error with the spec's code and field, and no request reaches
 * the (recording) service.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome } from "../helpers/cli.js";
import { startSession, toolError, type Session } from "./helpers.js";

const requests: string[] = [];
const bodies: string[] = [];
let server: http.Server;
let s: Session;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      bodies.push(raw);
      if (req.method === "POST" && req.url?.endsWith("/generation/start")) {
        res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ job_id: "run_mcp", status: "pending", estimated_credits: 5 }));
        return;
      }
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "nothing here" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
  s = await startSession(newHome(), [], {
    globalArgs: ["--target", "hosted", "--base-url", base],
    env: { MEDIAGEN_API_KEY: `mk_live_${"c".repeat(64)}`, HTTP_PROXY: undefined, HTTPS_PROXY: undefined },
  });
}, 60_000);

afterAll(async () => {
  await s?.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe("MCP tools on the hosted target", () => {
  it.each([
    ["asset_start", { type: "video", model: "vidA-3", prompt: "p", references: [{ url: "https://m.test/a.gif" }] }, "invalid_value", "references[0].url"],
    ["asset_start", { type: "video", model: "vidA-3", prompt: "p", references: [{ url: "https://m.test/clip" }] }, "invalid_value", "references[0].url"],
    ["generation_start", { prompt: "p", duration: 30, width: 800 }, "INVALID_FORMAT", "width"],
    ["export_start", { video_id: "vid_1", width: 800 }, "INVALID_FORMAT", "width"],
  ] as const)("%s %j: refused before sending", async (tool, args, code, field) => {
    const before = requests.length;
    const err = toolError(await s.client.callTool({ name: tool, arguments: args }));
    expect(err).toMatchObject({ code, field });
    expect(requests.slice(before)).toEqual([]);
  });
});

describe("MCP tools follow the CLI's rules for open bodies", () => {
  it("generation_start's input schema is open; an unknown key is sent as given, with a note; the service's names are fields", async () => {
    const tools = await s.client.listTools();
    const gen = tools.tools.find((x) => x.name === "generation_start")!.inputSchema as { additionalProperties?: unknown; properties: Record<string, unknown> };
    expect(gen.additionalProperties).not.toBe(false);
    expect(Object.keys(gen.properties)).toEqual(
      expect.arrayContaining(["use_space_media", "save_media_to_space", "emotion_enhancement", "animate_image_max", "animate_mode", "use_veo3"]),
    );
    const dup = tools.tools.find((x) => x.name === "video_duplicate")!.inputSchema as { additionalProperties?: unknown };
    expect(dup.additionalProperties).toBe(false);
    const before = bodies.length;
    const r = await s.client.callTool({ name: "generation_start", arguments: { script: "Hi.", voice_id: "vc_emma", use_space_media: false, sparkle: true } });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(bodies.slice(before).find((b) => b.includes("sparkle"))!)).toEqual({ script: "Hi.", voice_id: "vc_emma", use_space_media: false, sparkle: true });
    const texts = (r.content as { type: string; text: string }[]).map((c) => c.text);
    expect(texts.some((x) => x.includes("Sending sparkle as given"))).toBe(true);
  });

  it("video_duplicate's closed body still refuses an unknown key, before sending", async () => {
    const before = requests.length;
    const err = toolError(await s.client.callTool({ name: "video_duplicate", arguments: { video_id: "vid_1", sparkle: true } }));
    expect(err).toMatchObject({ code: "INVALID_TYPE", field: "sparkle" });
    expect(requests.slice(before)).toEqual([]);
  });
});
