/**
 * The avatar and voice surface beyond the handlers (issue 40): the legacy look listing is a command
 * flag with completions and an MCP tool like the other lists, the new flags complete, and the hosted
 * client sends a read's query parameters that no schema names instead of refusing them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.js";
import { completeWords } from "../../src/cli/complete.js";
import { describeOp, inputSchema, opTool } from "../../src/mcp/tools.js";
import { HostedEngine } from "../../src/hosted/hosted-engine.js";

const noop = () => {
  throw new Error("no context in completion tests");
};
const program = await buildProgram("0.0.0", noop, { writeOut: () => {}, writeErr: () => {} });
const values = (words: string[]) => {
  const r = completeWords(program, words);
  return "lines" in r ? r.lines.map((l) => l.split("\t")[0]) : r;
};

describe("completions", () => {
  it("avatar list completes --legacy and --tags; edit its new flags; create's --style offers raw", () => {
    expect(values(["avatar", "list", "--"])).toEqual(expect.arrayContaining(["--legacy", "--tags", "--only-public", "--gender"]));
    expect(values(["avatar", "edit", "--"])).toEqual(expect.arrayContaining(["--upscale", "--look-name", "--place", "--tags", "--resolution"]));
    expect(values(["avatar", "create", "--style", ""])).toContain("raw");
    expect(values(["avatar", "create", "--resolution", ""])).toEqual(["2K", "4K"]);
    expect(values(["voice", "list", "--"])).toEqual(expect.arrayContaining(["--only-public", "--language", "--tags"]));
  });
});

describe("MCP", () => {
  it("the legacy listing is a read-only tool with gender and tags", () => {
    const tool = opTool("resource_avatars");
    expect(tool).toMatchObject({ op: "resourceAvatars", read: true });
    expect(Object.keys((inputSchema(tool!.def).properties ?? {}) as object).sort()).toEqual(["gender", "tags"]);
    expect(describeOp(tool!)).toContain("GET /resources/avatars");
  });

  it("the avatar tools take the docs' names", () => {
    const create = inputSchema(opTool("avatar_create")!.def).properties as Record<string, unknown>;
    expect(Object.keys(create)).toEqual(expect.arrayContaining(["imageUrls", "images", "style", "resolution"]));
    const edit = inputSchema(opTool("avatar_edit")!.def).properties as Record<string, unknown>;
    expect(Object.keys(edit)).toEqual(expect.arrayContaining(["upscale", "look_name", "place", "tags", "imageUrls"]));
    const list = inputSchema(opTool("avatar_list")!.def).properties as Record<string, unknown>;
    expect(Object.keys(list)).toEqual(expect.arrayContaining(["tags", "onlyPublic"]));
  });
});

describe("the hosted client and a read's unknown query parameters", () => {
  it("sends them (the service may ignore them) and still refuses a bad value of a named one before sending", async () => {
    const urls: string[] = [];
    const server = http.createServer((req, res) => {
      urls.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" }).end("[]");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
    const engine = new HostedEngine({ baseUrl: base, apiKey: `mg_live_${"ab".repeat(32)}`, env: {}, requestTimeoutMs: 20_000 });
    try {
      await engine.avatarList({ gender: "female", utm_source: "docs" });
      await engine.voiceList({ language: "pt-BR", sort: "name" });
      expect(urls).toEqual(["/api/public/v1/avatar/list?gender=female&utm_source=docs", "/api/public/v1/voice/list?language=pt-BR&sort=name"]);
      await expect(engine.avatarList({ gender: "robot", utm_source: "docs" })).rejects.toMatchObject({ status: 400, code: "invalid_value", field: "gender" });
      await expect(engine.avatarCreate({ prompt: "x", image_urls: ["https://h/a.png"] } as never)).rejects.toMatchObject({ status: 400, field: "image_urls" });
      expect(urls).toHaveLength(2);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
