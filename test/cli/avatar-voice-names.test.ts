/**
 * The avatar and voice commands send the service's own names (issues 34 and 40): what each flag puts
 * on the wire, seen by a recording server standing in for the hosted service, and the legacy look
 * listing (`avatar list --legacy`, GET /resources/avatars).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../helpers/cli.js";
import { newHome } from "./helpers.js";

const KEY = `mk_live_${"a".repeat(64)}`;
let server: http.Server;
let base = "";
interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  body?: Record<string, unknown>;
}
const seen: Seen[] = [];

const LEGACY_ITEM = {
  id: "look_abc123",
  avatar_name: "Emma",
  look_name: "Emma at work",
  gender: "female",
  place: "office",
  format: "vertical",
  tags: ["business"],
  thumbnail: "https://cdn.example.com/emma.png",
  preview: null,
  model_available: ["standard"],
};

/** Answers each endpoint with a small body of the documented shape, and records the request. */
function answer(s: Seen): [number, unknown] {
  if (s.path === "/avatar/create" || s.path === "/avatar/edit") return [201, { avatar_id: "avatar_emma", look_id: "look_new" }];
  if (s.path === "/resources/avatars") return [200, [LEGACY_ITEM]];
  if (s.path === "/avatar/list" || s.path === "/voice/list") return [200, []];
  if (/^\/avatar\/[^/]+\/look\/[^/]+$/.test(s.path)) {
    const { tags: _tags, ...look } = LEGACY_ITEM;
    return [
      200,
      {
        ...look,
        name: look.look_name,
        avatar_id: "avatar_emma",
        accessories: [],
        action: "talking",
        emotion: "calm",
        selfie: false,
        status: "ready",
        age_range: "adult",
        ethnicity: "white",
        hair_color: "brown",
        error_message: null,
      },
    ];
  }
  return [404, { error: "Not found" }];
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const s: Seen = {
        method: req.method ?? "",
        path: url.pathname.replace(/^\/api\/public\/v1/, ""),
        query: Object.fromEntries(url.searchParams),
        ...(raw ? { body: JSON.parse(raw) as Record<string, unknown> } : {}),
      };
      seen.push(s);
      const [status, body] = answer(s);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

async function hosted(args: string[]) {
  const before = seen.length;
  const r = await runInProcess(["--target", "hosted", "--base-url", base, ...args, "--json"], {
    home: newHome(),
    env: { MEDIAGEN_API_KEY: KEY, NO_COLOR: "1", HTTP_PROXY: undefined, HTTPS_PROXY: undefined },
  });
  return { ...r, sent: seen.slice(before) };
}

describe("avatar create and edit send the service's names", () => {
  it("--image takes an image URL of any shape (no extension rule), sent as images", async () => {
    const url = "https://images.example.com/photo/12345?w=1080";
    const r = await hosted(["avatar", "create", "--image", url, "--name", "From images", "--yes"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent).toEqual([{ method: "POST", path: "/avatar/create", query: {}, body: { images: [url], name: "From images" } }]);
  });

  it("--element takes an SVG logo; --style raw and --resolution 4K are sent as typed", async () => {
    const r = await hosted([
      "avatar",
      "create",
      "--prompt",
      "a potter in her studio",
      "--style",
      "raw",
      "--resolution",
      "4K",
      "--element",
      "https://cdn.example.com/logo.svg",
      "--yes",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent[0]!.body).toEqual({ prompt: "a potter in her studio", style: "raw", resolution: "4K", elementImages: ["https://cdn.example.com/logo.svg"] });
  });

  it("edit's --upscale, --look-name, --place and --tags send upscale, look_name, place and tags[]", async () => {
    const r = await hosted([
      "avatar",
      "edit",
      "--avatar",
      "avatar_emma",
      "--look",
      "look_abc123",
      "--prompt",
      "at a trade fair",
      "--upscale",
      "--look-name",
      "Emma at the fair",
      "--place",
      "fair",
      "--tags",
      "business, events",
      "--yes",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent.at(-1)).toMatchObject({
      path: "/avatar/edit",
      body: {
        avatar_id: "avatar_emma",
        look_id: "look_abc123",
        prompt: "at a trade fair",
        upscale: true,
        look_name: "Emma at the fair",
        place: "fair",
        tags: ["business", "events"],
      },
    });
  });

  it("an upscaled edit is priced 2 + 1.5 by --dry-run, nothing sent but the look read", async () => {
    const r = await hosted(["avatar", "edit", "--avatar", "avatar_emma", "--look", "look_abc123", "--prompt", "p", "--upscale", "--dry-run"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent.filter((s) => s.method === "POST")).toEqual([]);
    expect(JSON.parse(r.stdout)).toMatchObject({ credits: 3.5 });
  });
});

describe("voice list sends what was typed", () => {
  it("--language pt-BR is sent as pt-BR (not pt); French becomes fr", async () => {
    const r = await hosted(["voice", "list", "--language", "pt-BR"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent).toEqual([{ method: "GET", path: "/voice/list", query: { language: "pt-BR" } }]);
    const named = await hosted(["voice", "list", "--language", "French"]);
    expect(named.sent[0]!.query).toEqual({ language: "fr" });
  });

  it("--only-public sends onlyPublic=true", async () => {
    const r = await hosted(["voice", "list", "--only-public"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent[0]!.query).toEqual({ onlyPublic: "true" });
  });
});

describe("avatar list: tags, and the legacy listing", () => {
  it("--tags sends tags", async () => {
    const r = await hosted(["avatar", "list", "--tags", "ecommerce", "--only-public"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent[0]).toEqual({ method: "GET", path: "/avatar/list", query: { tags: "ecommerce", onlyPublic: "true" } });
  });

  it("--legacy lists GET /resources/avatars with --gender and --tags", async () => {
    const r = await hosted(["avatar", "list", "--legacy", "--gender", "female", "--tags", "business"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.sent).toEqual([{ method: "GET", path: "/resources/avatars", query: { gender: "female", tags: "business" } }]);
    expect(JSON.parse(r.stdout)).toEqual([LEGACY_ITEM]);
  });

  it("--legacy with a filter it does not take: exit 2 naming the flag, nothing sent", async () => {
    const r = await hosted(["avatar", "list", "--legacy", "--place", "kitchen"]);
    expect(r.exitCode).toBe(2);
    expect(r.sent).toEqual([]);
    expect(r.stderr).toContain("--place");
  });
});
