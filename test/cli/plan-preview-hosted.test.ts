/**
 * A hosted plan previewed offline. A stub hosted service on 127.0.0.1 has two public avatars (one
 * look each, whose thumbnails are real PNGs of a clear colour) and two public voices.
 * `local catalog sync --from-hosted --voices --avatars` copies them; a plan written on the hosted ids
 * is then rendered by `plan preview` with the profile's target still hosted: each look's picture is
 * in its sequence's frames (pixel check), the timing is the one `plan show` lays out (silences
 * exactly, speech as estimated), the service is never asked to generate and no local space is debited.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MODELS } from "../../src/features/asset/emulator/catalog/models.js";
import { modelDetail } from "../../src/features/asset/emulator/catalog/model-schema.js";
import { newHome, run } from "./helpers.js";
import { getTools } from "../../src/media/tools.js";
import { ff, fixtureTools } from "../helpers/fixture-ffmpeg.js";

/** The ffmpeg and ffprobe the product uses: the system's, or the npm copies on a fresh machine. */
const TOOLS = await getTools();

type Json = Record<string, unknown>;

const RED = [208, 40, 40];
const GREEN = [40, 190, 70];
const LOOKS = [
  { avatar: "av_hosted_nora", name: "Nora", gender: "female", look: "lk_hosted_nora_studio", color: RED },
  { avatar: "av_hosted_omar", name: "Omar", gender: "male", look: "lk_hosted_omar_street", color: GREEN },
];

let server: http.Server;
let baseUrl: string;
let home: string;
let dir: string;
/** Every request the stub saw, as "METHOD /path". */
const seen: string[] = [];

function hex(c: number[]): string {
  return "0x" + c.map((v) => v.toString(16).padStart(2, "0")).join("");
}

/** A 540x960 PNG of one colour with a lighter band: a real picture, not a stub. */
function thumbnail(file: string, color: number[]): void {
  ff(TOOLS, ["-f", "lavfi", "-i", `color=c=${hex(color)}:s=540x960:d=1`, "-vf", "drawbox=x=0:y=860:w=540:h=100:color=white@0.5:t=fill", "-frames:v", "1", file]);
}

function lookRecord(l: (typeof LOOKS)[number]): Json {
  return {
    id: l.look,
    name: `${l.name} look`,
    place: "studio",
    accessories: [],
    action: "talking",
    emotion: "calm",
    selfie: false,
    format: "vertical",
    thumbnail: `${baseUrl}/media/${l.look}.png`,
    preview: null,
    status: "ready",
    model_available: ["standard"],
  };
}

function avatarRecord(l: (typeof LOOKS)[number]): Json {
  return {
    id: l.avatar,
    name: l.name,
    gender: l.gender,
    age: "30",
    age_range: "adult",
    ethnicity: "mixed",
    hair_color: "brown",
    thumbnail: `${baseUrl}/media/${l.look}.png`,
    looks: [lookRecord(l)],
    created_at: null,
  };
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url ?? "/", "http://x");
  seen.push(`${req.method} ${url.pathname}`);
  const send = (status: number, data: unknown) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "x-ratelimit-limit": "100",
      "x-ratelimit-remaining": "99",
      "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 60),
    });
    res.end(JSON.stringify(data));
  };
  const pic = /^\/media\/([\w-]+)\.png$/.exec(url.pathname);
  if (pic) {
    res.writeHead(200, { "content-type": "image/png" });
    res.end(fs.readFileSync(path.join(dir, `${pic[1]}.png`)));
    return;
  }
  const [status, data] = answerApi(url.pathname.replace(/^\/api\/public\/v1/, ""), body);
  send(status, data);
}

/** The fake hosted API's answer (status and JSON body) to one path. */
function answerApi(p: string, body: string): [number, unknown] {
  const model = modelDetail(MODELS.find((m) => m.name === "imgA-4-fast")!) as Json;
  if (p === "/asset/models") {
    const { settings: _s, input_schema: _i, max_prompt_length: _m, restricted_countries: _r, ...summary } = model;
    return [200, { models: [summary], count: 1 }];
  }
  if (p === `/asset/models/${String(model.name)}`) return [200, model];
  if (p === "/asset/pricing") {
    const n = (JSON.parse(body || "{}") as Json).generation_count;
    const count = typeof n === "number" ? n : 1;
    return [200, { model: model.name, cost_per_generation: 0.1, total_cost: 0.1 * count, currency: "credits", generation_count: count }];
  }
  if (p === "/voice/list") {
    return [
      200,
      [
        { id: "vc_hosted_ava", name: "Ava", language: "en", gender: "female", tags: [], source: "config" },
        { id: "vc_hosted_ben", name: "Ben", language: "en", gender: "male", tags: [], source: "config" },
      ],
    ];
  }
  if (p === "/resources/voices") return [200, []];
  if (p === "/avatar/list")
    return [
      200,
      LOOKS.map((l) => ({
        ...lookRecord(l),
        avatar_id: l.avatar,
        avatar_name: l.name,
        look_name: `${l.name} look`,
        gender: l.gender,
        age_range: "adult",
        ethnicity: "mixed",
        hair_color: "brown",
      })),
    ];
  const av = /^\/avatar\/([\w-]+)$/.exec(p);
  const found = av && LOOKS.find((l) => l.avatar === av[1]);
  if (found) return [200, avatarRecord(found)];
  return [404, { error: "Not found", details: [{ code: "not_found", message: "Not found" }] }];
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "preview-hosted-"));
  for (const l of LOOKS) thumbnail(path.join(dir, `${l.look}.png`), l.color);
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  home = newHome();
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  fs.rmSync(dir, { recursive: true, force: true });
});

const hosted = () => ({ MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: baseUrl, MEDIAGEN_API_KEY: `mg_live_${"a".repeat(64)}` });

/** The RGB of one pixel of the frame at `t` seconds. */
function pixel(file: string, t: number, x: number, y: number, w: number): number[] {
  const raw = execFileSync(
    fixtureTools(TOOLS).ffmpeg,
    ["-hide_banner", "-loglevel", "error", "-ss", String(t), "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
    {
      maxBuffer: 64 << 20,
    },
  );
  const i = (y * w + x) * 3;
  return [raw[i]!, raw[i + 1]!, raw[i + 2]!];
}

const near = (a: number[], b: number[], tol = 30) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);

describe("a hosted plan previewed offline", () => {
  it("local catalog sync --avatars copies the public avatars, their looks and pictures; status tells what and when", async () => {
    const sync = await run(["local", "catalog", "sync", "--from-hosted", "--voices", "--avatars", "--json"], { home, env: hosted() });
    expect(sync.exitCode, sync.stderr).toBe(0);
    const r = sync.json<{ avatars: string[]; looks: string[]; voices: string[]; skipped: unknown[] }>();
    expect(r.avatars).toEqual(LOOKS.map((l) => l.avatar));
    expect(r.looks).toEqual(LOOKS.map((l) => l.look));
    expect(r.voices).toEqual(["vc_hosted_ava", "vc_hosted_ben"]);

    const status = (await run(["local", "catalog", "status", "--json"], { home })).json<{
      avatars: { avatars: number; looks: number };
      voices: number;
      synced_at: string;
    }>();
    expect(status.avatars).toEqual({ avatars: 2, looks: 2 });
    expect(status.voices).toBe(2);
    expect(Date.parse(status.synced_at)).toBeGreaterThan(0);

    // The local instance now lists the hosted looks under their ids, with the copied picture.
    const list = (await run(["avatar", "list", "--json"], { home, env: { MEDIAGEN_TARGET: "local" } })).json<{ id: string; thumbnail: string }[]>();
    expect(list.map((l) => l.id)).toEqual(LOOKS.map((l) => l.look));
    const copied = fileURLToPathSafe(list[0]!.thumbnail);
    expect(fs.readFileSync(copied)).toEqual(fs.readFileSync(path.join(dir, `${LOOKS[0]!.look}.png`)));
  });

  it("plan preview renders the hosted plan locally: the looks' pictures in frame, plan show's timing, nothing debited", async () => {
    const plan = {
      enable: { subtitles: true, music: false, transitions: true, broll: false },
      sequence_plan: [
        { voice_id: "vc_hosted_ava", look_id: LOOKS[0]!.look, sequences: [{ text: "Hello from the studio." }] },
        { sequences: [{ text: null, duration_ms: 1000 }], look_id: LOOKS[1]!.look },
        { voice_id: "vc_hosted_ben", look_id: LOOKS[1]!.look, sequences: [{ text: "And this is Omar." }] },
      ],
    };
    const file = path.join(dir, "plan.json");
    fs.writeFileSync(file, JSON.stringify(plan));
    const spaces = () => run(["local", "spaces", "list", "--json"], { home }).then((x) => x.json<{ id: string; credits: number }[]>());
    const before = await spaces();
    seen.length = 0;

    const out = path.join(dir, "preview.mp4");
    const r = await run(["plan", "preview", file, "-o", out, "--json"], { home, env: hosted() });
    expect(r.exitCode, r.stderr).toBe(0);
    const res = r.json<{
      file: string;
      width: number;
      height: number;
      full_width: number;
      duration_ms: number;
      substitutions: unknown[];
      sequences: { start_ms: number; end_ms: number; text: string | null }[];
    }>();
    expect(res.file).toBe(out);
    expect(res.substitutions).toEqual([]);
    expect([res.width, res.height, res.full_width]).toEqual([540, 960, 1080]);

    // The service was not asked for anything, and no space was debited.
    expect(seen.filter((s) => !s.startsWith("GET "))).toEqual([]);
    expect(seen.filter((s) => /generation|export/.test(s))).toEqual([]);
    expect(await spaces()).toEqual(before);

    // Timing: plan show's silences exactly, its speech as estimated, the file as long as the timeline.
    const show = (await run(["plan", "show", file, "--offline", "--json"], { home, env: hosted() })).json<{
      blocks: { sequences: { duration_ms: number; silent: boolean }[] }[];
    }>();
    const shown = show.blocks.flatMap((b) => b.sequences);
    expect(res.sequences.length).toBe(shown.length);
    res.sequences.forEach((s, i) => {
      const d = s.end_ms - s.start_ms;
      if (shown[i]!.silent) expect(d).toBe(shown[i]!.duration_ms);
      else expect(Math.abs(d - shown[i]!.duration_ms) / shown[i]!.duration_ms).toBeLessThan(0.35);
    });
    const probed = Number(execFileSync(fixtureTools(TOOLS).ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out]).toString());
    expect(Math.abs(probed * 1000 - res.duration_ms)).toBeLessThanOrEqual(34);

    // Each look's picture is in its sequences' frames (above the subtitles, away from transitions).
    const mid = (s: { start_ms: number; end_ms: number }) => (s.start_ms + s.end_ms) / 2000;
    expect(near(pixel(out, mid(res.sequences[0]!), 270, 300, 540), RED)).toBe(true);
    expect(near(pixel(out, mid(res.sequences[2]!), 270, 300, 540), GREEN)).toBe(true);
  });

  it("names the ids the local instance does not have and what stood in for them", async () => {
    const file = path.join(dir, "unknown.json");
    fs.writeFileSync(file, JSON.stringify([{ voice_id: "vc_not_synced", look_id: "lk_not_synced", sequences: [{ text: "Hi." }] }]));
    const r = await run(["plan", "preview", file, "-o", path.join(dir, "unknown.mp4"), "--json"], { home, env: hosted() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<{ substitutions: unknown[] }>().substitutions).toEqual([
      { field: "sequence_plan[0].voice_id", id: "vc_not_synced", stood_in: "vc_hosted_ava", note: "a local voice speaks instead" },
      { field: "sequence_plan[0].look_id", id: "lk_not_synced", stood_in: LOOKS[0]!.look, note: "the first public look is shown instead" },
    ]);
    const human = await run(["plan", "preview", file, "-o", path.join(dir, "unknown.mp4")], { home, env: hosted() });
    expect(human.stdout).toContain(`sequence_plan[0].look_id: lk_not_synced → ${LOOKS[0]!.look}`);
  });
});

function fileURLToPathSafe(url: string): string {
  return new URL(url).protocol === "file:" ? decodeURIComponent(new URL(url).pathname) : url;
}
