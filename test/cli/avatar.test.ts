import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";
import { newHomeWithCatalog } from "../helpers/catalog-pictures.js";

interface Status {
  avatar_id: string;
  look_id: string;
  status: string;
  result?: { thumbnail: string; format: string };
  error?: { code: string; message: string };
}

function pngSize(file: string): { width: number; height: number } | undefined {
  const b = fs.readFileSync(file.startsWith("file:") ? fileURLToPath(file) : file);
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47) return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

async function credits(home: string): Promise<number> {
  const r = await run(["local", "spaces", "list", "--json"], { home });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.json<{ credits: number; is_default: boolean }[]>().find((s) => s.is_default)!.credits;
}

describe("mediagen avatar", () => {
  let home: string;
  beforeAll(async () => {
    // The catalog's pictures drawn once per test process (not by whichever test lists first).
    home = await newHomeWithCatalog();
    // The first call on a fresh home creates the default space (PRO, 1000 credits) whose balance is read.
    expect((await run(["voice", "get", "vc_emma", "-q"], { home })).exitCode).toBe(0);
  });

  it('create --prompt "friendly barista, warm light" --watch ends ready with a real thumbnail; 2 credits', async () => {
    const fresh = newHome();
    const r = await run(["avatar", "create", "--prompt", "friendly barista, warm light", "--watch"], { home: fresh, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    // One vocabulary, the service's: the text says what --json says (completed).
    expect(r.stdout).toMatch(/^status\s+completed$/m);
    const ids = /^Created avatar (av_\w+) with look (lk_\w+)$/m.exec(r.stderr)!;
    const s = (await run(["avatar", "status", ids[1]!, ids[2]!, "--json"], { home: fresh })).json<Status>();
    expect(s.status).toBe("completed");
    expect(pngSize(s.result!.thumbnail)).toEqual({ width: 1152, height: 2048 });
    expect(await credits(fresh)).toBe(1000 - 2);
  });

  it("--watch --download saves the thumbnail and prints its path; --json prints the service objects", async () => {
    const out = path.join(home, "thumbs");
    const r = await run(["avatar", "create", "--prompt", "a podcast host", "--format", "horizontal", "--download", out], { home, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const saved = lines[0]!;
    expect(path.dirname(saved)).toBe(out);
    expect(saved).toMatch(/lk_\w+\.png$/);
    expect(pngSize(saved)).toEqual({ width: 2048, height: 1152 });

    const j = await run(["avatar", "create", "--prompt", "a chef", "--json"], { home });
    expect(Object.keys(j.json<object>()).sort()).toEqual(["avatar_id", "look_id"]);
  });

  it("--simulate fail --watch exits 7 and the credits come back", async () => {
    const before = await credits(home);
    const r = await run(["avatar", "create", "--prompt", "doomed", "--simulate", "fail", "--watch", "--json"], { home, timeoutMs: 60_000 });
    expect(r.exitCode).toBe(7);
    expect(r.errorLine()?.code).toBe("job_failed");
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "failed", error: { code: "LOOK_GENERATION_FAILED" } });
    expect(await credits(home)).toBe(before);
  });

  it("image-based create from a relative local path is free and ready at once", async () => {
    const src = path.join(home, "me.png");
    fs.writeFileSync(path.join(home, "not-image.png"), "plain text, not an image");
    const thumb = (await run(["avatar", "look", "av_james", "lk_james_car", "--download", home, "-q"], { home })).stdout.trim();
    fs.renameSync(thumb, src);
    const before = await credits(home);
    // A path relative to the CLI's working directory (the test's): the CLI makes it absolute.
    const r = await run(["avatar", "create", "--image", path.relative(process.cwd(), src), "--name", "Me", "-q"], { home });
    // -q without --watch prints the avatar id, then the look id
    expect(r.exitCode, r.stderr).toBe(0);
    const [avatarId, lookId] = r.stdout.trim().split("\n");
    const s = (await run(["avatar", "status", avatarId!, lookId!, "--json"], { home })).json<Status>();
    expect(s.status).toBe("completed");
    expect(await credits(home)).toBe(before);
    const bad = await run(["avatar", "create", "--image", path.join(home, "not-image.png"), "--json"], { home });
    expect(bad.exitCode).toBe(2);
    expect(bad.errorLine()).toMatchObject({ status: 400, code: "INVALID_VALUE" });
  });

  it("edit --watch --json prints the final status; the source look stays", async () => {
    const r = await run(["avatar", "edit", "--avatar", "av_maya", "--look", "lk_maya_kitchen", "--prompt", "in a bakery", "--watch", "--json"], {
      home,
      timeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Status;
    expect(s).toMatchObject({ avatar_id: "av_maya", status: "completed" });
    const a = (await run(["avatar", "get", "av_maya", "--json"], { home })).json<{ looks: { id: string; status: string }[] }>();
    expect(a.looks.map((l) => l.id)).toEqual(["lk_maya_kitchen", "lk_maya_office", "lk_maya_beach", s.look_id]);
  });

  it.each([
    ["create without --prompt or --image", ["avatar", "create"], 2, "missing_field"],
    ["edit without --avatar", ["avatar", "edit", "--look", "l", "--prompt", "p"], 2, "missing_field"],
    ["edit without --prompt", ["avatar", "edit", "--avatar", "a", "--look", "l"], 2, "missing_field"],
    ["bad --simulate", ["avatar", "create", "--prompt", "p", "--simulate", "explode"], 2, "invalid_value"],
    ["unknown avatar", ["avatar", "get", "av_nobody"], 4, "NOT_FOUND"],
    ["look of another avatar", ["avatar", "look", "av_maya", "lk_james_car"], 4, "NOT_FOUND"],
    ["status of an unknown look", ["avatar", "status", "av_maya", "lk_nope"], 4, "LOOK_NOT_FOUND"],
    ["edit of an unknown avatar", ["avatar", "edit", "--avatar", "av_nobody", "--look", "l", "--prompt", "p"], 4, "AVATAR_NOT_FOUND"],
    ["invalid webhook", ["avatar", "create", "--prompt", "p", "--webhook-url", "nope"], 2, "INVALID_VALUE"],
  ])("%s: %j → exit %i, %s", async (_n, args, exit, code) => {
    const r = await run([...args, "--json"], { home });
    expect(r.exitCode).toBe(exit);
    expect(r.stdout).toBe("");
    expect(r.errorLine()?.code).toBe(code);
  });

  it("list: filters as flags, --json array, -q ids, tables without colour", async () => {
    const j = await run(["avatar", "list", "--gender", "male", "--place", "kitchen", "--json"], { home });
    expect(j.json<{ id: string }[]>().map((i) => i.id)).toEqual(["lk_robert_kitchen", "lk_marco_kitchen"]);
    const q = await run(["avatar", "list", "--only-public", "--hair-color", "bald", "--selfie", "-q"], { home });
    expect(q.stdout.trim().split("\n")).toEqual(["lk_marco_bathroom", "lk_marco_car"]);
    const n = await run(["avatar", "list", "--only-public", "--hair-color", "bald", "--no-selfie", "-q"], { home });
    expect(n.stdout.trim().split("\n")).toEqual(["lk_marco_kitchen"]);
    const a = await run(["avatar", "list", "--only-public", "--accessories", "tie,towel", "--age-range", "senior,adult", "-q"], { home });
    expect(a.stdout.trim().split("\n")).toEqual(["lk_robert_office", "lk_marco_bathroom"]);
    const t = await run(["avatar", "list", "--only-public"], { home, env: { COLUMNS: "80" } });
    const lines = t.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^LOOK\s+AVATAR\s+PLACE/);
    expect(t.stdout).not.toContain("\u001b[");
    expect(lines.some((l) => l.startsWith("lk_robert_office "))).toBe(true);
  });

  it("look --download saves a catalog thumbnail", async () => {
    const dir = path.join(home, "cat");
    const r = await run(["avatar", "look", "av_maya", "lk_maya_office", "--download", dir], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(path.join(dir, "lk_maya_office.png"));
    expect(pngSize(r.stdout.trim())).toEqual({ width: 960, height: 540 });
    const again = await run(["avatar", "look", "av_maya", "lk_maya_office", "--download", dir], { home });
    expect(again.exitCode).toBe(2);
    // --json: stdout keeps the look; the saved path is an NDJSON line on stderr.
    const j = await run(["avatar", "look", "av_maya", "lk_maya_office", "--download", dir, "--force", "--json"], { home });
    expect(j.exitCode, j.stderr).toBe(0);
    expect(j.json()).toMatchObject({ id: "lk_maya_office" });
    expect(
      j.stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l)),
    ).toContainEqual({
      id: "lk_maya_office",
      saved: path.join(dir, "lk_maya_office.png"),
    });
  });
});

describe("mediagen voice", () => {
  let home: string;
  beforeAll(() => {
    home = newHome();
  });

  it("list --json: the PRO default space sees free, start and pro voices", async () => {
    const r = await run(["voice", "list", "--json"], { home });
    const voices = r.json<{ id: string; source: string }[]>();
    expect(voices.map((v) => v.id)).toContain("vc_george");
    expect(voices.map((v) => v.id)).not.toContain("vc_luca");
    expect(voices.every((v) => v.source === "config")).toBe(true);
  });

  it("filters as flags, -q ids, and the resources listing with real previews", async () => {
    const q = await run(["voice", "list", "--language", "fr", "--gender", "female", "-q"], { home });
    expect(q.stdout.trim().split("\n")).toEqual(["vc_camille", "vc_lea"]);
    const t = await run(["voice", "list", "--tags", "deep", "--only-public", "-q"], { home });
    expect(t.stdout.trim().split("\n")).toEqual(["vc_george", "vc_lukas"]);
    const res = await run(["voice", "resources", "--language", "de", "--json"], { home, timeoutMs: 30_000 });
    const items = res.json<{ id: string; accent: string; preview: string }[]>();
    expect(items.map((v) => v.id)).toEqual(["vc_hannah", "vc_lukas"]);
    const wav = fs.readFileSync(fileURLToPath(items[0]!.preview));
    expect(wav.toString("ascii", 0, 4)).toBe("RIFF");
    expect(wav.length).toBeGreaterThan(10_000);
    const alias = await run(["voice", "list", "--resources", "--language", "de", "--json"], { home });
    expect(alias.json()).toEqual(items);
  });

  it("get: a voice, and NOT_FOUND above the plan's tier", async () => {
    const ok = await run(["voice", "get", "vc_emma", "--json"], { home });
    expect(ok.json()).toEqual({ id: "vc_emma", name: "Emma", language: "en", gender: "female", tags: ["narration", "warm"], source: "config" });
    const human = await run(["voice", "get", "vc_emma"], { home });
    expect(human.stdout).toMatch(/^source\s+public catalog$/m);
    const nf = await run(["voice", "get", "vc_luca", "--json"], { home });
    expect(nf.exitCode).toBe(4);
    expect(nf.errorLine()).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });
});
