/**
 * The service's own names (issue 34) and names where ids are asked (issue 38), on the hosted target
 * against a recording server (a real HTTP server on 127.0.0.1 that keeps every request body and
 * answers as the service would), and on the local instance: every flag of `generate` sends the name
 * of the service's docs and no invented one; `--body` with those names is sent; an open body passes
 * unknown keys (`--body`, `--set`) with one stderr line; ids are opaque (sent as given, a did-you-mean
 * when the service says it does not know one); the request is judged before any list is read; a
 * hosted prompt-based start lets the service pick the voice; the local instance honours the names
 * and not the invented ones.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess } from "../helpers/cli.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { withCatalogPictures } from "../helpers/catalog-pictures.js";
import { applySets } from "../../src/cli/body.js";
import type { GenerationSpec } from "../../src/features/generation/emulator/request.js";

const KEY = `mk_live_${"b".repeat(64)}`;
let server: http.Server;
let base = "";
/** "METHOD /path" and the JSON body of every request. */
let seen: { at: string; body: Record<string, unknown> | undefined }[] = [];

/** The lists the recording server answers: the local catalog's, so they have the service's shape. */
let VOICES: unknown[] = [];
let LOOKS: unknown[] = [];
let t: TestInstance;

function answer(at: string, body: Record<string, unknown> | undefined): [number, unknown] {
  if (at === "GET /voice/list") return [200, VOICES];
  if (at === "GET /avatar/list") return [200, LOOKS];
  if (at === "POST /generation/start") {
    if (body?.voice_id === "Emmma")
      return [400, { error: "Voice not found", code: "INVALID_VOICE_ID", details: [{ code: "INVALID_VOICE_ID", message: "Voice not found", field: "voice_id" }] }];
    return [201, { job_id: "run_abc", status: "pending", estimated_credits: 5 }];
  }
  if (at === "POST /video/duplicate") {
    if (body?.voice_id === "Georg")
      return [400, { error: "Voice not found", code: "INVALID_VOICE_ID", details: [{ code: "INVALID_VOICE_ID", message: "Voice not found", field: "voice_id" }] }];
    return [201, { video_id: "vid_copy", status: "done", message: "ok", changes_applied: { voice_changed: true, avatar_changed: false } }];
  }
  return [404, { error: "not here" }];
}

beforeAll(async () => {
  t = openTestInstance({ worker: "none" });
  await withCatalogPictures(t.home);
  VOICES = await t.api.voiceList({});
  LOOKS = await t.api.avatarList({});
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const at = `${req.method} ${new URL(req.url ?? "/", "http://x").pathname.replace(/^\/api\/public\/v1/, "")}`;
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      seen.push({ at, body });
      const [status, out] = answer(at, body);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await t.close();
});

async function hosted(args: string[], input?: string) {
  seen = [];
  return runInProcess(["--target", "hosted", "--base-url", base, ...args], {
    env: { MEDIAGEN_API_KEY: KEY, NO_COLOR: "1", HTTP_PROXY: undefined, HTTPS_PROXY: undefined },
    ...(input !== undefined ? { input } : {}),
  });
}
const sent = (at: string) => seen.find((s) => s.at === at)?.body;
const INVENTED = [
  "use_library_media",
  "save_to_library",
  "enhance_emotions",
  "max_animated_images",
  "native_avatar_model",
  "music_url",
  "trim_start",
  "parent_avatar_id",
];

describe("generate sends the service's names (hosted target, recording server)", () => {
  it.each([
    ["--animate-image-max 2", ["--animate-image", "--animate-image-max", "2"], { animate_image: true, animate_image_max: 2 }],
    ["--max-animated-images 2 (old flag)", ["--max-animated-images", "2"], { animate_image_max: 2 }],
    ["--animate-mode pro", ["--animate-mode", "pro"], { animate_mode: "pro" }],
    ["--veo3", ["--veo3"], { use_veo3: true }],
    ["--emotion-enhancement", ["--emotion-enhancement"], { emotion_enhancement: true }],
    ["--enhance-emotions (old flag)", ["--enhance-emotions"], { emotion_enhancement: true }],
    ["--no-space-media", ["--no-space-media"], { use_space_media: false }],
    ["--no-library-media (old flag)", ["--no-library-media"], { use_space_media: false }],
    ["--no-save-media-to-space", ["--no-save-media-to-space"], { save_media_to_space: false }],
    ["--no-save-to-library (old flag)", ["--no-save-to-library"], { save_media_to_space: false }],
    ["--media-url", ["--media-url", "https://cdn.test/a.png"], { media_urls: ["https://cdn.test/a.png"] }],
    ["--web-url", ["--web-url", "https://news.test/page"], { web_urls: ["https://news.test/page"] }],
  ])("%s", async (_name, flags, fields) => {
    const r = await hosted(["generate", "--prompt", "cats", "--duration", "30", "--voice", "vc_emma", ...flags, "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const body = sent("POST /generation/start")!;
    expect(body).toMatchObject(fields);
    for (const name of INVENTED) expect(Object.keys(body)).not.toContain(name);
    expect(r.stderr).not.toContain("as given");
  });

  it("--native-avatar sends use_native_avatar only; --native-avatar-model is refused (no documented name), nothing sent", async () => {
    const ok = await hosted(["generate", "--prompt", "cats", "--duration", "30", "--voice", "vc_emma", "--native-avatar", "--json"]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(Object.keys(sent("POST /generation/start")!).sort()).toEqual(["duration", "prompt", "use_native_avatar", "voice_id"]);
    const no = await hosted(["generate", "--prompt", "cats", "--duration", "30", "--native-avatar-model", "premium", "--json"]);
    expect(no.exitCode).toBe(2);
    expect(no.stderr).toContain("name no field for the native-avatar model");
    expect(seen).toEqual([]);
    const help = await hosted(["generate", "--help"]);
    expect(help.stdout.replace(/\s+/g, " ")).toContain("the docs name no field to choose it, so no flag sends one");
  });

  it("--plan sends the block's avatar_id and the media's start_at", async () => {
    const plan = [{ avatar_id: "av_maya", voice_id: "vc_emma", sequences: [{ text: "Hi.", media: { url: "https://cdn.test/b.mp4", show: "full", start_at: 2 } }] }];
    const r = await hosted(["generate", "--plan", "-", "--json"], JSON.stringify(plan));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sent("POST /generation/start")!.sequence_plan).toEqual(plan);
  });

  it("--body with the service's names is sent as it is (no 'not a field of this request')", async () => {
    const body = {
      script: "Hello.",
      voice_id: "vc_emma",
      use_space_media: false,
      save_media_to_space: false,
      emotion_enhancement: true,
      animate_image_max: 1,
      use_veo3: true,
    };
    const r = await hosted(["generate", "--body", "-", "--json"], JSON.stringify(body));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sent("POST /generation/start")).toEqual(body);
    expect(r.stderr).not.toContain("as given");
  });

  it("an open body passes unknown keys from --body and --set, said once on stderr (with a did-you-mean)", async () => {
    const r = await hosted(
      ["generate", "--body", "-", "--set", "enable.music=true", "--set", "native_avatar_model=premium", "--set", "formt=square", "--set", "animate_image_max=3"],
      JSON.stringify({ script: "Hello.", voice_id: "vc_emma", music_url: "https://x.test/m.mp3", enable: { sparkles: true } }),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sent("POST /generation/start")).toEqual({
      script: "Hello.",
      voice_id: "vc_emma",
      music_url: "https://x.test/m.mp3",
      enable: { sparkles: true, music: true },
      native_avatar_model: "premium",
      formt: "square",
      animate_image_max: 3,
    });
    const lines = r.stderr.split("\n").filter((l) => l.includes("as given"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("music_url");
    expect(lines[0]).toContain("enable.sparkles");
    expect(lines[0]).toContain("native_avatar_model");
    expect(lines[0]).toContain("formt (did you mean format?)");
  });

  it("a known field of the wrong type in --set is refused before anything is sent", async () => {
    const r = await hosted(["generate", "--prompt", "cats", "--duration", "30", "--set", "use_veo3=yes", "--json"]);
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()).toMatchObject({ code: "INVALID_VALUE", field: "use_veo3" });
    expect(seen).toEqual([]);
  });
});

describe("ids are opaque; names where ids are asked (hosted target)", () => {
  it("a value that is no name and could be an id is sent as given", async () => {
    const r = await hosted(["generate", "--script", "Hi.", "--voice", "21m00Tcm4TlvDq8ikWAM", "--avatar", "6653b8e1f2a4c5d6e7f80aaa", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sent("POST /generation/start")).toMatchObject({ voice_id: "21m00Tcm4TlvDq8ikWAM", avatar_id: "6653b8e1f2a4c5d6e7f80aaa" });
    // A dry run says such an id is not in the list, and does not refuse it.
    const dry = await hosted(["generate", "--script", "Hi.", "--voice", "21m00Tcm4TlvDq8ikWAM", "--dry-run"]);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain("--voice: 21m00Tcm4TlvDq8ikWAM is not in `mediagen voice list`");
    expect(sent("POST /generation/start")).toBeUndefined();
  });

  it("names resolve; the service's 'unknown id' gets a did-you-mean from the list", async () => {
    const ok = await hosted(["generate", "--script", "Hi.", "--voice", "george", "--avatar", "Maya kitchen", "--json"]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(sent("POST /generation/start")).toMatchObject({ voice_id: "vc_george", avatar_id: "lk_maya_kitchen" });
    const miss = await hosted(["generate", "--script", "Hi.", "--voice", "Emmma", "--json"]);
    expect(miss.exitCode).toBe(2);
    expect(miss.errorLine()).toMatchObject({ code: "INVALID_VOICE_ID" });
    expect(miss.stderr).toContain("Did you mean Emma (vc_emma)?");
    expect(sent("POST /generation/start")).toMatchObject({ voice_id: "Emmma" });
  });

  it("a prompt-based start without --voice lets the service choose (no voice_id), with or without a look", async () => {
    for (const extra of [[], ["--avatar", "lk_james_car"]]) {
      const r = await hosted(["generate", "--prompt", "pourquoi les chats ronronnent", "--duration", "30", ...extra, "--json"]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(sent("POST /generation/start")).not.toHaveProperty("voice_id");
      expect(r.stderr).not.toContain("Voice:");
    }
  });

  it("the request is checked before any name is looked up: a bad duration is said with nothing read", async () => {
    const r = await hosted(["generate", "--prompt", "x", "--duration", "5", "--avatar", "Maya kitchen", "--json"]);
    expect(r.exitCode).toBe(2);
    expect(r.errorLine()).toMatchObject({ code: "INVALID_VALUE", field: "duration" });
    expect(seen).toEqual([]);
    const dup = await hosted(["duplicate", "vid_1", "--voice", "George", "--body", "-", "--json"], JSON.stringify({ avatar_look_id: 5 }));
    expect(dup.exitCode).toBe(2);
    expect(dup.errorLine()).toMatchObject({ code: "INVALID_TYPE", field: "avatar_look_id" });
    expect(seen).toEqual([]);
  });

  it("duplicate resolves --voice and --look/--avatar names; an unknown id gets a did-you-mean", async () => {
    const r = await hosted(["duplicate", "vid_1", "--voice", "George", "--avatar", "James car", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sent("POST /video/duplicate")).toEqual({ video_id: "vid_1", voice_id: "vc_george", avatar_look_id: "lk_james_car" });
    const miss = await hosted(["duplicate", "vid_1", "--voice", "Georg", "--json"]);
    expect(miss.errorLine()).toMatchObject({ code: "INVALID_VOICE_ID" });
    expect(miss.stderr).toContain("Did you mean George (vc_george)?");
  });
});

describe("--set", () => {
  it("parses JSON values, else text; dotted keys set inside objects, keeping their other fields", () => {
    expect(applySets({ enable: { music: false, broll: true } }, ["enable.music=true", "a=3", "b=hello", 'c={"x":[1]}', "d.e.f=null", "g="])).toEqual({
      enable: { music: true, broll: true },
      a: 3,
      b: "hello",
      c: { x: [1] },
      d: { e: { f: null } },
      g: "",
    });
    expect(() => applySets({}, ["novalue"])).toThrow(/expected key=value/);
    expect(() => applySets({}, ["a..b=1"])).toThrow(/expected key=value/);
  });
});

describe("the local instance honours the service's names, not invented ones", () => {
  const specOf = (jobId: string) => JSON.parse((t.db.prepare("SELECT spec FROM generations WHERE id = ?").get(jobId) as { spec: string }).spec) as GenerationSpec;
  const local = (args: string[]) => runInProcess(args, { home: t.home, engine: async () => t.engine(t.key) as never });

  it("each documented name is acted on", async () => {
    const r = await local([
      "generate",
      "--script",
      "Hello there.",
      "--voice",
      "vc_emma",
      "--animate-image",
      "--animate-image-max",
      "1",
      "--animate-mode",
      "pro",
      "--veo3",
      "--emotion-enhancement",
      "--no-space-media",
      "--no-save-media-to-space",
      "--json",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(specOf(r.json<{ job_id: string }>().job_id)).toMatchObject({
      animate_image: true,
      animate_image_max: 1,
      animate_mode: "pro",
      use_veo3: true,
      emotion_enhancement: true,
      use_space_media: false,
      save_media_to_space: false,
    });
  });

  it("an invented name passes the open body (one notice) and is not acted on as if it were the real one", async () => {
    const r = await local([
      "generate",
      "--script",
      "Hello there.",
      "--voice",
      "vc_emma",
      "--native-avatar",
      "--set",
      "use_library_media=false",
      "--set",
      "save_to_library=false",
      "--set",
      "native_avatar_model=premium",
      "--json",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.split("\n").filter((l) => l.includes("as given"))).toHaveLength(1);
    const spec = specOf(r.json<{ job_id: string }>().job_id);
    expect(spec).toMatchObject({ use_space_media: true, save_media_to_space: true, native_avatar_model: "omni-flash" });
    expect(spec).not.toHaveProperty("use_library_media");
  });

  it("a prompt-based start without a voice says which voice the local instance uses", async () => {
    const r = await local(["generate", "--prompt", "why cats purr", "--duration", "10"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("Voice: the local instance's default, Emma (vc_emma)");
    expect(specOf(r.stdout.trim()).voice).toMatchObject({ voice_id: "vc_emma" });
  });

  it("the local 400 for a known field of the wrong type, and for a plan block's avatar_id", async () => {
    const bad = await local(["generate", "--script", "Hi.", "--voice", "vc_emma", "--set", "animate_mode=fast", "--json"]);
    expect(bad.errorLine()).toMatchObject({ code: "INVALID_VALUE", field: "animate_mode" });
    const plan = [{ avatar_id: "av_nobody", voice_id: "vc_emma", sequences: [{ text: "Hi." }] }];
    const r = await runInProcess(["generate", "--plan", "-", "--json"], { home: t.home, engine: async () => t.engine(t.key) as never, input: JSON.stringify(plan) });
    expect(r.errorLine()).toMatchObject({ code: "PLAN_RESOLUTION_FAILED", field: "sequence_plan[0].avatar_id" });
  });
});
