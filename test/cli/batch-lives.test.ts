/**
 * `mediagen batch` walks each line through its start operation's life (src/features/<f>/life.ts):
 * every kind of line (a look made and edited, a generation and its thumbnail, an export, a duplicate
 * exported next, a script, an asset) starts, is followed to its end and saves its file under
 * `{line}-{kind}-{id}`; and a start whose answer the batch lost (SIGKILLed before the manifest kept
 * it) is found on the instance and adopted, whatever its kind, never sent twice.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { killInStartWindow, localKey, newHome, run, runBin } from "./helpers.js";

interface ManifestEvent {
  ev: string;
  line?: number;
  step?: string;
  ids?: string[];
  cost?: number;
  adopted?: boolean;
  video_id?: string;
  look_id?: string;
  avatar_id?: string;
  path?: string;
}

const events = (file: string): ManifestEvent[] =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as ManifestEvent);

const ndjson = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Credits the space paid (debits less refunds). */
async function paid(home: string, space: string): Promise<number> {
  const r = await run(["local", "ledger", space, "--json"], { home });
  const rows = r.json<{ kind: string; amount: number }[]>();
  return Math.round(rows.reduce((n, x) => n + (x.kind === "debit" || x.kind === "refund" ? -x.amount : 0), 0) * 1000) / 1000;
}

const writeLines = (file: string, lines: object[]) => fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");

/** One instance and one space: a video made by a first batch (a generate line: its thumbnail saved, its video named in the manifest). */
const home = newHome();
let video: Promise<{ videoId: string; env: Record<string, string>; space: string }> | undefined;
function aVideo(): Promise<{ videoId: string; env: Record<string, string>; space: string }> {
  video ??= (async () => {
    const { api_key, space_id } = await localKey("PRO", 1000, home);
    const env = { MEDIAGEN_API_KEY: api_key };
    const file = path.join(home, "gen.jsonl");
    writeLines(file, [{ kind: "generate", script: "Hi.", voice_id: "vc_emma", avatar_id: "lk_zoe_podcast", format: "square" }]);
    const out = path.join(home, "gen-out");
    const r = await run(["batch", "run", file, "--out", out, "--json"], { home, env, timeoutMs: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const evs = events(path.join(out, "gen.jsonl.manifest.jsonl"));
    const started = evs.find((e) => e.ev === "started")!;
    expect(started.ids![0]).toMatch(/^run_/);
    const saved = evs.find((e) => e.ev === "saved")!;
    expect(path.basename(saved.path!)).toBe(`1-generate-${started.ids![0]}.jpg`);
    const videoId = evs.find((e) => e.ev === "result")!.video_id!;
    expect(videoId).toMatch(/^[0-9a-f]{24}$/);
    return { videoId, env, space: space_id };
  })();
  return video;
}

describe("batch: every kind of line walks its start's life", () => {
  it("looks, an export, a duplicate exported next, a script and an asset: each started once, followed, saved by its id", async () => {
    const { videoId, env, space } = await aVideo();
    const before = await paid(home, space);
    const file = path.join(home, "kinds.jsonl");
    writeLines(file, [
      { kind: "avatar", prompt: "a smiling gardener" },
      { kind: "avatar", avatar_id: "av_maya", look_id: "lk_maya_kitchen", prompt: "on a beach" },
      { kind: "export", video_id: videoId, format: "square" },
      { kind: "duplicate", video_id: videoId, export: { format: "square" } },
      { kind: "script", prompt: "One tip for rest", duration: 10 },
      { kind: "asset", type: "image", model: "imgA-4-fast", prompt: "a green fox" },
    ]);
    const out = path.join(home, "kinds-out");
    const r = await run(["batch", "run", file, "--out", out, "--json"], { home, env, timeoutMs: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const summary = ndjson(r.stdout).find((e) => e.event === "summary")!;
    expect(summary).toMatchObject({ lines: 6, done: 6, failed: 0, unknown: 0 });

    const evs = events(path.join(out, "kinds.jsonl.manifest.jsonl"));
    const of = (line: number, ev: string, step = "start") => evs.filter((e) => e.line === line && e.ev === ev && (e.step === undefined || e.step === step));
    const id = (line: number, step = "start") => of(line, "started", step)[0]!.ids![0]!;
    const saved = (line: number) => evs.filter((e) => e.line === line && e.ev === "saved").map((e) => path.basename(e.path!));
    for (let line = 1; line <= 6; line++) expect(of(line, "done")).toHaveLength(1);

    // The looks: read through their avatars, saved as pictures.
    expect(of(1, "started")[0]).toMatchObject({ ids: [expect.stringMatching(/^lk_/)], cost: 2, look_id: id(1), avatar_id: expect.any(String) });
    expect(of(2, "started")[0]).toMatchObject({ look_id: id(2), avatar_id: "av_maya" });
    expect(saved(1)).toEqual([expect.stringMatching(new RegExp(`^1-avatar-${id(1)}\\.(png|jpg)$`))]);
    expect(saved(2)).toEqual([expect.stringMatching(new RegExp(`^2-avatar-${id(2)}\\.(png|jpg)$`))]);
    // The export: its MP4.
    expect(id(3)).toMatch(/^exp_/);
    expect(saved(3)).toEqual([`3-export-${id(3)}.mp4`]);
    // The duplicate: a free copy (its video named at once), then exported.
    expect(of(4, "started")[0]).toMatchObject({ cost: 0 });
    expect(of(4, "result")[0]!.video_id).toBe(id(4));
    expect(id(4, "export")).toMatch(/^exp_/);
    expect(saved(4)).toEqual([`4-duplicate-${id(4, "export")}.mp4`]);
    // The script: its text, under the id of its line (the service names none).
    expect(id(5)).toBe("script-5");
    expect(saved(5)).toEqual(["5-script-script-5.txt"]);
    expect(fs.readFileSync(path.join(out, "5-script-script-5.txt"), "utf8").trim().length).toBeGreaterThan(0);
    // The asset: its image.
    expect(saved(6)).toEqual([`6-asset-${id(6)}.png`]);

    // What the manifest says was debited is what the space paid.
    expect(summary.credits).toBe(Math.round(((await paid(home, space)) - before) * 1000) / 1000);
  }, 180_000);

  it("a start whose answer was lost (killed before the manifest kept it) is adopted on the re-run, for each kind, and paid once", async () => {
    const { videoId, env, space } = await aVideo();
    const before = await paid(home, space);
    const file = path.join(home, "lost.jsonl");
    writeLines(file, [
      { kind: "avatar", prompt: "a lighthouse keeper" },
      { kind: "script", prompt: "Two tips for sleep", duration: 10 },
      { kind: "duplicate", video_id: videoId },
      { kind: "export", video_id: videoId, format: "square" },
    ]);
    const out = path.join(home, "lost-out");
    const manifest = path.join(out, "lost.jsonl.manifest.jsonl");
    // Each run adopts the line the run before was killed on, then is killed on the next one's answer.
    for (let line = 1; line <= 4; line++) {
      const r = await runBin(["batch", "run", file, "--out", out, "--parallel", "1"], { home, env: { ...env, ...killInStartWindow(line) }, timeoutMs: 60_000 });
      expect(r.signal, r.stderr).toBe("SIGKILL");
      expect(
        events(manifest)
          .filter((e) => e.line === line && e.ev !== "batch")
          .map((e) => e.ev),
      ).toEqual(["intent"]);
    }
    const again = await run(["batch", "run", file, "--out", out, "--json"], { home, env, timeoutMs: 120_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(ndjson(again.stdout).find((e) => e.event === "summary")).toMatchObject({ lines: 4, done: 4 });

    const evs = events(manifest);
    for (let line = 1; line <= 4; line++) {
      const starts = evs.filter((e) => e.line === line && e.ev === "started" && e.step === "start");
      expect(starts, `line ${line}`).toHaveLength(1);
      expect(starts[0]!.adopted, `line ${line}`).toBe(true);
    }
    // The adopted script kept its text; the adopted duplicate its video.
    const script = evs.find((e) => e.line === 2 && e.ev === "saved")!;
    expect(fs.readFileSync(script.path!, "utf8").trim().length).toBeGreaterThan(0);
    expect(evs.find((e) => e.line === 3 && e.ev === "result")!.video_id).toMatch(/^[0-9a-f]{24}$/);
    // Nothing was sent twice: what the lines hold is what the space paid.
    const held = evs.filter((e) => e.ev === "started").reduce((n, e) => n + (e.cost ?? 0), 0);
    expect(Math.round(held * 1000) / 1000).toBe(Math.round(((await paid(home, space)) - before) * 1000) / 1000);
  }, 240_000);
});
