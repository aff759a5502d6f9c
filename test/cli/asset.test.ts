/**
 * `mediagen asset …` in process (helpers.ts `run`) on a fresh local instance: the flags build the
 * request, --watch/--download wait and save, --json prints the service's objects, and every
 * failure maps to its exit code.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { pngSize } from "../../src/media/inputs.js";
import { localKey, newHome, run } from "./helpers.js";
import { probeOutput } from "../helpers/fixture-ffmpeg.js";

interface Started {
  asset_ids: string[];
  status: string;
  count: number;
  cost_per_generation: number;
  total_cost: number;
}
interface AssetJson {
  asset_id: string;
  status: string;
  url?: string;
  error?: { code: string };
  generation_params: { references?: unknown[]; duration?: number; model: string };
}

let home: string;
let out: string;
const balanceOf = async (spaceId: string) => {
  const spaces = (await run(["local", "spaces", "list", "--json"], { home })).json<{ id: string; credits: number }[]>();
  return spaces.find((s) => s.id === spaceId)!.credits;
};

beforeAll(() => {
  home = newHome();
  out = path.join(home, "out");
});

describe("mediagen asset start --watch --download on a fresh instance", () => {
  it("an image: the price on stderr, the saved path alone on stdout; the PNG has the model's default size", async () => {
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "a red fox at dawn", "--watch", "--download", out], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("Started 1 generation: 1 credit each, 1 credit in total");
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const saved = lines[0]!;
    expect(saved).toMatch(new RegExp(`^${out}/[0-9a-f]{24}\\.png$`));
    expect(pngSize(saved)).toEqual({ width: 1024, height: 1024 });
    expect(r.stderr).toMatch(/completed/);
  });

  it("a video: the requested duration, with an audio stream exactly when audio is on", async () => {
    const on = await run(
      [
        "asset",
        "start",
        "--type",
        "video",
        "--model",
        "vidA-3-fast",
        "--prompt",
        "waves",
        "--duration",
        "6",
        "--aspect-ratio",
        "16:9",
        "--watch",
        "--download",
        out,
        "-q",
      ],
      { home },
    );
    expect(on.exitCode, on.stderr).toBe(0);
    const off = await run(
      [
        "asset",
        "start",
        "--type",
        "video",
        "--model",
        "vidA-3-fast",
        "--prompt",
        "waves",
        "--duration",
        "4",
        "--setting",
        "generateAudio=false",
        "--watch",
        "--download",
        out,
        "-q",
      ],
      { home },
    );
    expect(off.exitCode, off.stderr).toBe(0);
    const [a, b] = [on.stdout.trim(), off.stdout.trim()];
    expect(a).toMatch(/\.mp4$/);
    const pa = await probeOutput(a);
    const pb = await probeOutput(b);
    expect(Math.abs(pa.durationSeconds - 6)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(pb.durationSeconds - 4)).toBeLessThanOrEqual(0.1);
    expect([pa.width, pa.height, pa.audioCodec]).toEqual([1280, 720, "aac"]);
    expect(pb.audioCodec).toBeUndefined();
    // -q prints only the path; the thumbnail stays on the instance.
    expect(on.stdout.trim().split("\n")).toHaveLength(1);
  });

  it("refuses to overwrite a download without --force", async () => {
    const first = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "x", "--json"], { home });
    const id = first.json<Started>().asset_ids[0]!;
    const dir = path.join(home, "dl");
    const a = await run(["asset", "status", id, "--download", dir, "-q"], { home });
    expect(a.exitCode, a.stderr).toBe(0);
    const again = await run(["asset", "status", id, "--download", dir, "-q"], { home });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect((await run(["asset", "status", id, "--download", dir, "--force", "-q"], { home })).exitCode).toBe(0);
  });
});

describe("mediagen asset: requests, JSON and exit codes", () => {
  it("models, model and price print the service's objects with --json and readable text without", async () => {
    const list = await run(["asset", "models", "--type", "video", "--json"], { home });
    const body = list.json<{ type: string; count: number; models: { name: string }[] }>();
    expect(body.type).toBe("video");
    expect(body.count).toBe(body.models.length);
    const names = await run(["asset", "models", "--tag", "upscale", "-q"], { home });
    expect(names.stdout).toBe("vidC-upscale\n");
    const one = await run(["asset", "model", "imgA-4"], { home });
    expect(one.stdout).toMatch(/setting quality: select \[low\|medium\|high\], default medium, affects cost/);
    const price = await run(["asset", "price", "--model", "vidA-3", "--duration", "5"], { home });
    expect(price.stdout).toBe("vidA-3: 24 credits per generation × 1 = 24 credits\n  duration adjusted to 6\n");
    const json = await run(["asset", "price", "--model", "imgB-edit", "--image-count", "3", "--count", "2", "--json"], { home });
    expect(json.json()).toEqual({ model: "imgB-edit", cost_per_generation: 0.6, total_cost: 1.2, currency: "credits", generation_count: 2 });
    const missing = await run(["asset", "model", "vidZ-0", "--json"], { home });
    expect(missing.exitCode).toBe(4);
    expect(missing.errorLine()).toMatchObject({ status: 404, code: "model_not_found" });
  });

  it("builds references, slots and elements from flags; a body file is overridden by flags", async () => {
    const img = path.join(home, "ref.png");
    const first = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "ref", "--watch", "--download", home, "-q", "--force"], { home });
    fs.renameSync(first.stdout.trim(), img);
    const lib = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "lib", "--watch", "--json"], { home });
    const libId = lib.json<AssetJson>().asset_id;
    const bodyFile = path.join(home, "body.json");
    fs.writeFileSync(bodyFile, JSON.stringify({ type: "video", model: "vidD-omni", prompt: "ignored", duration: 4, resolution: "480p" }));
    // Relative paths are resolved where the CLI runs; asset:/avatar: name library items and avatars.
    const rel = path.relative(process.cwd(), img);
    const r = await run(
      [
        "asset",
        "start",
        "--body",
        bodyFile,
        "--prompt",
        "@hero meets a friend",
        "--ref",
        rel,
        "--ref",
        `asset:${libId}`,
        "--ref",
        "avatar:av_maya",
        "--element",
        `hero=${img},asset:${libId}`,
        "--file-name",
        "Team Shot",
        "--watch",
        "--json",
      ],
      { home },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const a = r.json<AssetJson>();
    expect(a.status).toBe("completed");
    expect(a.generation_params).toMatchObject({ model: "vidD-omni", duration: 4 });
    expect(a.generation_params.references).toEqual([{ url: img }, { asset_id: libId }, { avatar_id: "av_maya" }]);
    expect(a.url).toMatch(/\/team-shot\.mp4$/);

    const slots = await run(
      ["asset", "start", "--type", "video", "--model", "vidB-2-5-frames", "--prompt", "p", "--start-image", img, "--end-image", `asset:${libId}`, "--json", "--watch"],
      { home },
    );
    expect(slots.exitCode, slots.stderr).toBe(0);
    expect(slots.json<AssetJson>().generation_params.references).toEqual([{ url: img }, { asset_id: libId }]);
  }, 40_000);

  it("maps service errors to exit codes, printing the error object with --json", async () => {
    const cases: [string[], number, Record<string, unknown>][] = [
      [["--type", "image", "--model", "imgA-4"], 2, { status: 400, code: "missing_field", field: "prompt" }],
      [["--type", "video", "--model", "vidA-3", "--prompt", "x", "--duration", "5"], 2, { status: 400, code: "invalid_value", field: "duration" }],
      [["--type", "video", "--model", "vidD-omni-max", "--prompt", "x"], 3, { status: 403, code: "not_eligible" }],
    ];
    for (const [args, exit, error] of cases) {
      const r = await run(["asset", "start", ...args, "--json"], { home });
      expect(r.exitCode, r.stderr).toBe(exit);
      expect(r.errorLine()).toMatchObject(error);
      expect(r.stdout).toBe("");
    }
    const poor = await localKey("PRO", 1, home);
    const short = await run(["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "x", "--json"], { home, env: { MEDIAGEN_API_KEY: poor.api_key } });
    expect(short.exitCode).toBe(5);
    expect(short.errorLine()).toMatchObject({ status: 402, code: "not_eligible" });
    expect(await balanceOf(poor.space_id)).toBe(1);
    const unknown = await run(["asset", "status", "0123456789abcdef01234567"], { home });
    expect(unknown.exitCode).toBe(4);
  });

  it("usage errors exit 2 before any request", async () => {
    for (const args of [
      ["--model", "imgA-4", "--prompt", "x"],
      ["--type", "image", "--model", "imgA-4", "--prompt", "x", "--setting", "quality"],
      ["--type", "image", "--model", "imgA-4", "--prompt", "x", "--count", "two"],
      ["--type", "image", "--model", "imgA-4", "--prompt", "x", "--simulate", "explode"],
      ["--type", "image", "--model", "imgA-4", "--prompt", "x", "--watch", "--timeout", "soon"],
    ]) {
      const r = await run(["asset", "start", ...args], { home });
      expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(2);
    }
  });

  it("--simulate fail: the watch ends failed (exit 7) and the space gets its credits back", async () => {
    const k = await localKey("PRO", 100, home);
    const env = { MEDIAGEN_API_KEY: k.api_key };
    const r = await run(["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "x", "--count", "2", "--simulate", "fail:PROVIDER_DOWN", "--watch"], {
      home,
      env,
    });
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toMatch(/PROVIDER_DOWN/);
    // Both failures are on stdout, one line each.
    expect(r.stdout.trim().split("\n")).toHaveLength(2);
    const ids = r.stderr.match(/^[0-9a-f]{24}$/gm) ?? [];
    expect(ids).toHaveLength(2);
    const status = await run(["asset", "status", ...ids, "--json"], { home, env });
    // Several ids: one JSON array.
    const records = status.json<AssetJson[]>();
    expect(records.map((x) => [x.status, x.error?.code])).toEqual([
      ["failed", "PROVIDER_DOWN"],
      ["failed", "PROVIDER_DOWN"],
    ]);
    expect(await balanceOf(k.space_id)).toBe(100);
  });

  it("start without --watch returns at once and the background worker still completes it", async () => {
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "later", "-q"], { home });
    expect(r.exitCode).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    const done = await run(["asset", "status", id, "--watch", "--json"], { home });
    expect(done.json<AssetJson>().status).toBe("completed");
  });
});
