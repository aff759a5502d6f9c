/**
 * An app written from the service's own docs runs unchanged against `mediagen serve` (issue 40):
 * every call of the docs' walk-through, with the docs' bodies and query strings (their placeholders
 * replaced by local ids), made with raw fetch against a real server on 127.0.0.1 port 0, answered
 * with the documented statuses and shapes. Then one test per item the issue lists.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { writeImage } from "../unit/avatar-fixtures.js";
import { assertBuilt, childEnv, createKey, startServe } from "./serve-child.js";

let t: TestInstance;
let server: RunningServer;
/** Serves the portrait at /portrait (no extension in the URL, as the docs' CDN links often have none), counting requests. */
let pictures: http.Server;
let pictureHits = 0;
let portraitUrl = "";
let portrait: Buffer;

beforeAll(async () => {
  t = openTestInstance();
  server = await startServer({ instance: t, host: "127.0.0.1", port: 0, allowPrivateNetwork: true });
  portrait = fs.readFileSync(await writeImage(path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mg-docs-")), "portrait.jpg"), 90, 160));
  pictures = http.createServer((req, res) => {
    pictureHits++;
    if (req.url?.startsWith("/portrait")) res.writeHead(200, { "content-type": "image/jpeg" }).end(portrait);
    else if (req.url === "/logo.svg") res.writeHead(200, { "content-type": "image/svg+xml" }).end('<svg xmlns="http://www.w3.org/2000/svg"/>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => pictures.listen(0, "127.0.0.1", r));
  portraitUrl = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}/portrait?w=1080`;
}, 60_000);

afterAll(async () => {
  await server.close();
  await new Promise<void>((r) => pictures.close(() => r()));
  await t.close();
});

// biome-ignore lint/suspicious/noExplicitAny: the service's JSON as an app reads it, field by field in the assertions.
type Json = any;

async function call(method: "GET" | "POST", p: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(server.baseUrl + p, {
    method,
    headers: { authorization: `Bearer ${t.key}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const balance = () => t.ledger.balance(t.spaceForKey(t.key)!.id) / 1000;

describe("the docs' walk-through against serve", () => {
  it("lists, script, generation from a prompt and from a script, status, export, duplicate, avatars, both resources listings", async () => {
    // Voices and looks, with the docs' filters.
    const voices = await call("GET", "/voice/list?language=en&gender=female");
    expect(voices.status).toBe(200);
    expect(voices.body.length).toBeGreaterThan(0);
    for (const v of voices.body)
      expect(v).toMatchObject({ id: expect.any(String), name: expect.any(String), language: "en", gender: "female", source: expect.any(String) });
    const onlyPublic = await call("GET", "/voice/list?onlyPublic=true");
    expect(onlyPublic.status).toBe(200);
    const voiceId = voices.body[0].id as string;

    const looks = await call("GET", "/avatar/list?tags=ecommerce");
    expect(looks.status).toBe(200);
    expect(looks.body.length).toBeGreaterThan(0);
    for (const l of looks.body) expect(l.tags).toContain("ecommerce");
    const filtered = await call("GET", "/avatar/list?gender=female&place=kitchen,office&onlyPublic=true");
    expect(filtered.status).toBe(200);
    const lookId = filtered.body[0].id as string;
    expect(filtered.body[0]).toMatchObject({ id: lookId, avatar_id: expect.any(String), gender: "female", model_available: expect.any(Array) });

    // Script.
    const script = await call("POST", "/script/generate", { prompt: "Three tips for a better morning routine", duration: 30 });
    expect(script.status).toBe(200);
    expect(script.body).toMatchObject({ script: expect.any(String), cost: expect.any(Number), extractedImages: expect.any(Array) });

    // Generation from a prompt and from a script; status.
    const fromPrompt = await call("POST", "/generation/start", { prompt: "Why cats purr", duration: 15, voice_id: voiceId, avatar_id: lookId });
    expect(fromPrompt.status).toBe(201);
    expect(fromPrompt.body).toEqual({ job_id: expect.any(String), status: "pending", estimated_credits: expect.any(Number) });
    const fromScript = await call("POST", "/generation/start", { script: "Cats purr when they are calm. They also purr to heal.", voice_id: voiceId, avatar_id: lookId });
    expect(fromScript.status).toBe(201);
    const queued = await call("GET", `/generation/status/${fromScript.body.job_id}`);
    expect(queued.status).toBe(200);
    expect(queued.body).toMatchObject({ job_id: fromScript.body.job_id, status: expect.stringMatching(/^(pending|processing)$/) });
    await t.runUntilIdle(120_000);
    const done = await call("GET", `/generation/status/${fromScript.body.job_id}`);
    expect(done.body).toMatchObject({ status: "completed", result: { video_id: expect.any(String), duration: expect.any(Number), cost: expect.any(Number) } });
    const videoId = done.body.result.video_id as string;

    // Export and its status; duplicate.
    const exp = await call("POST", "/export/start", { video_id: videoId, format: "vertical" });
    expect(exp.status).toBe(201);
    expect(exp.body).toEqual({ job_id: expect.any(String), status: "pending", estimated_credits: expect.any(Number) });
    const expStatus = await call("GET", `/export/status/${exp.body.job_id}`);
    expect(expStatus.status).toBe(200);
    expect(expStatus.body).toMatchObject({ job_id: exp.body.job_id, status: expect.any(String), progress: expect.any(Number) });
    const dup = await call("POST", "/video/duplicate", { video_id: videoId });
    expect(dup.status).toBe(201);
    expect(dup.body).toMatchObject({
      video_id: expect.any(String),
      status: expect.any(String),
      message: expect.any(String),
      changes_applied: { voice_changed: false, avatar_changed: false },
    });

    // Avatar create by prompt (a documented style and resolution) and by images (the docs' alias); status.
    const byPrompt = await call("POST", "/avatar/create", { prompt: "a potter in her studio", style: "raw", resolution: "4K" });
    expect(byPrompt.status).toBe(201);
    expect(byPrompt.body).toEqual({ avatar_id: expect.any(String), look_id: expect.any(String) });
    const byImages = await call("POST", "/avatar/create", { imageUrls: [portraitUrl], name: "From images" });
    expect(byImages.status).toBe(201);
    const pending = await call("GET", `/avatar/status?avatar_id=${byPrompt.body.avatar_id}&look_id=${byPrompt.body.look_id}`);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({
      avatar_id: byPrompt.body.avatar_id,
      look_id: byPrompt.body.look_id,
      status: expect.stringMatching(/^(pending|processing|completed)$/),
    });
    const ready = await call("GET", `/avatar/status?avatar_id=${byImages.body.avatar_id}&look_id=${byImages.body.look_id}`);
    expect(ready.body).toMatchObject({ status: "completed", result: { id: byImages.body.look_id, avatar_name: "From images", thumbnail: expect.any(String) } });

    // Both resources listings.
    const legacy = await call("GET", "/resources/avatars");
    expect(legacy.status).toBe(200);
    expect(legacy.body.map((l: { id: string }) => l.id)).toContain(byImages.body.look_id);
    const legacyFiltered = await call("GET", "/resources/avatars?gender=female&tags=business");
    expect(legacyFiltered.status).toBe(200);
    expect(legacyFiltered.body.length).toBeGreaterThan(0);
    for (const l of legacyFiltered.body) {
      expect(Object.keys(l).sort()).toEqual(["avatar_name", "format", "gender", "id", "look_name", "model_available", "place", "preview", "tags", "thumbnail"]);
      expect([l.gender, l.tags.includes("business")]).toEqual(["female", true]);
    }
    const resVoices = await call("GET", "/resources/voices?language=en&gender=male&tags=narration");
    expect(resVoices.status).toBe(200);
    for (const v of resVoices.body) expect(v).toMatchObject({ language: "en", gender: "male", accent: expect.any(String), preview: expect.any(String) });
  }, 180_000);
});

describe("issue 40, item by item, through serve", () => {
  it("avatar/list takes tags (comma list, any match); catalog looks carry tags; onlyPublic leaves the space's looks out", async () => {
    const edit = await call("POST", "/avatar/edit", { avatar_id: "av_maya", look_id: "lk_maya_office", prompt: "at a trade fair", tags: ["tradefair"] });
    expect(edit.status).toBe(201);
    await t.runUntilIdle(60_000);
    const any = await call("GET", "/avatar/list?tags=tradefair,podcast");
    expect(any.body.map((l: { id: string }) => l.id)).toEqual([edit.body.look_id, "lk_james_podcast", "lk_zoe_podcast"]);
    const pub = await call("GET", "/avatar/list?tags=tradefair,podcast&onlyPublic=true");
    expect(pub.body.map((l: { id: string }) => l.id)).toEqual(["lk_james_podcast", "lk_zoe_podcast"]);
  }, 60_000);

  it("GET /resources/avatars filters by gender and by any of tags; it takes no onlyPublic", async () => {
    const male = await call("GET", "/resources/avatars?gender=male&tags=food,fitness");
    expect(male.status).toBe(200);
    expect(male.body.map((l: { id: string }) => l.id)).toEqual(["lk_robert_kitchen", "lk_marco_kitchen", "lk_diego_gym"]);
    const bad = await call("GET", "/resources/avatars?gender=robot");
    expect([bad.status, bad.body.details[0].field]).toEqual([400, "gender"]);
  });

  it("imageUrls is the docs' alias of images; an image URL needs no extension", async () => {
    const hits = pictureHits;
    const r = await call("POST", "/avatar/create", { imageUrls: [`${portraitUrl}&v=alias`] });
    expect(r.status).toBe(201);
    expect(pictureHits).toBe(hits + 1);
    const look = await call("GET", `/avatar/${r.body.avatar_id}/look/${r.body.look_id}`);
    expect(look.body).toMatchObject({ status: "ready", format: "vertical" });
  });

  it("an element image of any URL is accepted; one that is not a PNG, JPEG or WebP fails the look, refunded", async () => {
    const before = balance();
    const logo = portraitUrl.replace(/\/portrait.*$/, "/logo.svg");
    const r = await call("POST", "/avatar/create", { prompt: "a chef with our logo", elementImages: [logo] });
    expect(r.status).toBe(201);
    await t.runUntilIdle(60_000);
    const s = await call("GET", `/avatar/status?avatar_id=${r.body.avatar_id}&look_id=${r.body.look_id}`);
    expect(s.body).toMatchObject({ status: "failed", error: { message: expect.stringContaining("reference image 1") } });
    expect(balance()).toBe(before);
  }, 60_000);

  it("style raw and resolution 2K/4K at the documented prices: create 2/4, images free, edit 2/4, upscale +1.5", async () => {
    const cases: [string, unknown, number][] = [
      ["/avatar/create", { prompt: "a potter", style: "raw" }, 2],
      ["/avatar/create", { prompt: "a potter", style: "raw", resolution: "4K" }, 4],
      ["/avatar/create", { images: [portraitUrl] }, 0],
      ["/avatar/edit", { avatar_id: "av_lena", look_id: "lk_lena_home", prompt: "in a cafe", style: "raw" }, 2],
      ["/avatar/edit", { avatar_id: "av_lena", look_id: "lk_lena_home", prompt: "in a cafe", resolution: "4K" }, 4],
      ["/avatar/edit", { avatar_id: "av_lena", look_id: "lk_lena_home", prompt: "in a cafe", upscale: true }, 3.5],
      ["/avatar/edit", { avatar_id: "av_lena", look_id: "lk_lena_home", prompt: "in a cafe", resolution: "4K", upscale: true }, 5.5],
    ];
    for (const [p, body, cost] of cases) {
      const before = balance();
      const r = await call("POST", p, body);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(before - balance(), JSON.stringify(body)).toBe(cost);
    }
  });

  it("edit honours look_name, place and tags; an invented name is refused as unknown", async () => {
    const r = await call("POST", "/avatar/edit", {
      avatar_id: "av_lena",
      look_id: "lk_lena_home",
      prompt: "on a rooftop",
      look_name: "Lena on the roof",
      place: "rooftop",
      tags: ["outdoor", "city"],
    });
    expect(r.status).toBe(201);
    const look = await call("GET", `/avatar/av_lena/look/${r.body.look_id}`);
    expect(look.body).toMatchObject({ look_name: "Lena on the roof", name: "Lena on the roof", place: "rooftop" });
    // Without tags, the new look keeps its source's.
    const untagged = await call("POST", "/avatar/edit", { avatar_id: "av_maya", look_id: "lk_maya_kitchen", prompt: "baking bread" });
    await t.runUntilIdle(60_000);
    const listed = (await call("GET", "/avatar/list?tags=city")).body.find((l: { id: string }) => l.id === r.body.look_id);
    expect(listed).toMatchObject({ tags: ["outdoor", "city"], place: "rooftop" });
    const kept = (await call("GET", "/avatar/list?tags=food")).body.find((l: { id: string }) => l.id === untagged.body.look_id);
    expect(kept).toMatchObject({ tags: ["food", "lifestyle", "ecommerce"], place: "kitchen" });
    const invented = await call("POST", "/avatar/edit", { avatar_id: "av_lena", look_id: "lk_lena_home", prompt: "p", lookName: "x" });
    expect(invented.status).toBe(400);
    expect(invented.body.details[0]).toMatchObject({ code: "INVALID_VALUE", field: "lookName", message: expect.stringContaining("is not a field of this request") });
  }, 60_000);

  it("a query parameter neither the spec nor the docs name is ignored on a read, and --debug says so; a named one is still checked", async () => {
    const prev = process.env.MEDIAGEN_DEBUG;
    process.env.MEDIAGEN_DEBUG = "1";
    const said: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      said.push(String(chunk));
      return true;
    });
    try {
      const looks = await call("GET", "/avatar/list?gender=female&utm_source=docs&page=2");
      expect(looks.status).toBe(200);
      expect(looks.body.every((l: { gender: string }) => l.gender === "female")).toBe(true);
      const voices = await call("GET", "/voice/list?language=en&sort=name");
      expect(voices.status).toBe(200);
    } finally {
      spy.mockRestore();
      if (prev === undefined) delete process.env.MEDIAGEN_DEBUG;
      else process.env.MEDIAGEN_DEBUG = prev;
    }
    expect(said.join("")).toContain("avatarList: ignored query parameter(s) utm_source, page");
    expect(said.join("")).toContain("voiceList: ignored query parameter(s) sort");
    const checked = await call("GET", "/avatar/list?gender=robot&utm_source=docs");
    expect([checked.status, checked.body.details[0]]).toEqual([400, { code: "invalid_value", field: "gender", message: "gender must be male or female" }]);
    const status = await call("GET", "/avatar/status?avatar_id=av_maya&look_id=lk_maya_beach&foo=1");
    expect(status.body.status).toBe("completed");
    const missing = await call("GET", "/avatar/status?foo=1");
    expect([missing.status, missing.body]).toEqual([400, { error: "avatar_id is required", code: "INVALID_VALUE" }]);
  });

  it("voice list matches pt-BR to the pt voices, and says so under MEDIAGEN_DEBUG", async () => {
    const prev = process.env.MEDIAGEN_DEBUG;
    process.env.MEDIAGEN_DEBUG = "1";
    const said: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      said.push(String(chunk));
      return true;
    });
    let r: Awaited<ReturnType<typeof call>>;
    try {
      r = await call("GET", "/voice/list?language=pt-BR");
    } finally {
      spy.mockRestore();
      if (prev === undefined) delete process.env.MEDIAGEN_DEBUG;
      else process.env.MEDIAGEN_DEBUG = prev;
    }
    expect(said.join("")).toContain("language pt-BR: the local instance's voices carry language codes; matched to pt voices");
    expect(r.status).toBe(200);
    expect(r.body.length).toBeGreaterThan(0);
    expect(new Set(r.body.map((v: { language: string }) => v.language))).toEqual(new Set(["pt"]));
  });
});

describe("one parse at the door: a refused request has no side effect", () => {
  it("an avatar create from images that the contract refuses fetches nothing and leaves no file", async () => {
    const media = path.join(t.mediaDir, "avatars");
    const cache = path.join(t.home, "local", "cache", "references");
    const files = () => [media, cache].flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d) : []));
    const before = files();
    const hits = pictureHits;
    const avatars = t.db.prepare("SELECT COUNT(*) AS n FROM avatars").get();
    // A URL the old handler's own checks passed (an image extension), so its dry run fetched it.
    const url = `${portraitUrl.replace("/portrait?", "/portrait-never-fetched.jpg?")}`;
    // Each passes every check the handler made before fetching; the contract refuses it.
    for (const body of [
      { images: [url], elementImages: ["https://cdn.example.com/logo.png"] },
      { images: [url], invented_field: true },
      { images: [url], format: "square" },
    ]) {
      const r = await call("POST", "/avatar/create", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect(pictureHits).toBe(hits);
    expect(files()).toEqual(before);
    expect(t.db.prepare("SELECT COUNT(*) AS n FROM avatars").get()).toEqual(avatars);
  });
});

describe("serve --debug says which query parameters it ignored", () => {
  it("a read with a parameter neither the spec nor the docs name is answered, and serve's stderr names it", async () => {
    assertBuilt();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-serve-debug-"));
    const env = childEnv(home);
    const served = await startServe(env, ["--debug", "--no-ui"]);
    try {
      const key = await createKey(env);
      const r = await fetch(`${served.baseUrl}/avatar/list?utm_source=docs`, { headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(200);
      await expect.poll(() => served.stderr()).toContain("avatarList: ignored query parameter(s) utm_source");
      expect(served.stderr()).not.toContain(key);
    } finally {
      await served.stop();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
