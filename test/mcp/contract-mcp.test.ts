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
let server: http.Server;
let s: Session;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "nothing here" }));
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
