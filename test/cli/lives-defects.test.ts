/**
 * What a user hit before the operation lives (issue 20), one test each, on the local instance: the
 * export chains recorded and downloadable, `download <video_id>`, the cost guard on every paid start
 * (export, `--no-input`), `--dry-run` checking what it can, `duplicate --export … --download`, the
 * `Next:` line, history refreshed from the target, prompts redacted in history, `download --name`,
 * and the wizard's generate-and-export saving the MP4 beside the plan (on a real pseudo-terminal).
 */
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN, newHome, ROOT, run, type RunOptions } from "./helpers.js";
import { runEnv } from "../helpers/cli.js";
import { recordStart } from "../../src/cli/journal.js";
import { body, startSession } from "../mcp/helpers.js";
import { newHomeWithCatalog } from "../helpers/catalog-pictures.js";

interface Entry {
  kind: string;
  id: string;
  status: string;
  saved: string | null;
  video_id?: string;
  prompt?: string;
}

const isMp4 = (file: string) => fs.readFileSync(file).subarray(4, 8).toString("latin1") === "ftyp";
const isPng = (file: string) =>
  fs
    .readFileSync(file)
    .subarray(0, 4)
    .equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
/** A one-word video, as small as a video goes: every export of it (several run on in the worker while later tests go on) renders little. */
const SHORT = ["--script", "Hi.", "--voice", "vc_emma", "--avatar", "lk_zoe_podcast", "--format", "custom", "--width", "90", "--height", "160"];
/** A terminal on stdin, stdout and stderr, prompting allowed (no CI). */
const terminal = (extra: Partial<RunOptions> = {}): RunOptions => ({ tty: { stdin: true, stdout: true, stderr: true, columns: 100 }, env: { CI: undefined }, ...extra });

let home: string;
let videoId: string;
const history = async (h = home, more: string[] = ["--no-refresh"]) => (await run(["history", "--json", "--limit", "0", ...more], { home: h })).json<Entry[]>();

beforeAll(async () => {
  // The catalog's pictures drawn once per test process, not by the first look read here (--dry-run of av_maya).
  home = await newHomeWithCatalog();
  const g = await run(["generate", ...SHORT, "--watch", "--json"], { home, timeoutMs: 60_000 });
  expect(g.exitCode, g.stderr).toBe(0);
  videoId = g.json<{ result: { video_id: string } }>().result.video_id;
}, 90_000);

describe("export chains in history", () => {
  it("generate --export --download: the export is recorded, the generation row ends completed with its video and file, and download <export id> saves the MP4", async () => {
    const out = path.join(home, "chain", "a.mp4");
    const r = await run(["generate", ...SHORT, "--export", "--download", out], { home, timeoutMs: 90_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    const rows = await history();
    const exp = rows.find((x) => x.kind === "export")!;
    expect(exp).toMatchObject({ status: "completed", saved: out });
    const gen = rows.find((x) => x.kind === "generation" && x.saved === out)!;
    expect(gen.status).toBe("completed");
    expect(gen.video_id).toMatch(/^[0-9a-f]{24}$/);
    const again = await run(["download", exp.id, "--dir", path.join(home, "again")], { home });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(path.join(home, "again", `${exp.id}.mp4`));
    expect(isMp4(again.stdout.trim())).toBe(true);
    expect((await run(["history", "--kind", "export", "-q"], { home })).stdout).toContain(exp.id);
  }, 120_000);

  it("download <video_id> says it is a video and prints the export command", async () => {
    const r = await run(["download", videoId], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`is a video`);
    expect(r.stderr).toContain(`mediagen export ${videoId} --download ${videoId}.mp4`);
  });
});

describe("the cost guard on every paid start", () => {
  it("export --dry-run prices in the video's own format and starts nothing; --max-credits refuses what cannot be priced", async () => {
    const before = (await history()).length;
    const dry = await run(["export", videoId, "--dry-run"], { home });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/0 credits .*own format/);
    expect(dry.stderr).toContain("Dry run: nothing was started.");
    const premium = await run(["export", videoId, "--avatar-model", "premium", "--max-credits", "10"], { home });
    expect(premium.exitCode).toBe(2);
    expect(premium.stderr).toMatch(/--max-credits: the price of an export .* is not known before it starts/);
    const stranger = await run(["export", "0123456789abcdef01234567", "--max-credits", "10"], { home });
    expect(stranger.exitCode).toBe(2);
    expect((await history()).length).toBe(before);
    const ok = await run(["export", videoId, "--max-credits", "0", "-q"], { home });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect((await history()).length).toBe(before + 1);
  });

  it("MCP prices export_start without format as the video's own format when the history made the video", async () => {
    const s = await startSession(home, ["--max-credits", "1"]);
    try {
      const p = body(await s.client.callTool({ name: "price", arguments: { tool: "export_start", arguments: { video_id: videoId } } }));
      expect(p).toMatchObject({ credits: 0, exact: true });
      const started = await s.client.callTool({ name: "export_start", arguments: { video_id: videoId } });
      expect(started.isError, JSON.stringify(started.content)).not.toBe(true);
    } finally {
      await s.close();
    }
  });

  it("with --no-input on a terminal, a start that would ask is refused (exit 2) unless --yes", async () => {
    const video = ["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "waves", "--count", "2"];
    const before = (await history()).length;
    const refused = await run(["--no-input", ...video], { home, ...terminal() });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--no-input forbids asking; pass --yes/);
    expect((await history()).length).toBe(before);
    const yes = await run(["--no-input", ...video, "--yes", "-q"], { home, ...terminal() });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect((await history()).length).toBe(before + 2);
  });

  it("--dry-run checks on the target what the start would refuse: an avatar id where a look id is needed, an element with one image", async () => {
    const g = await run(["generate", "--script", "Hi.", "--voice", "vc_emma", "--avatar", "av_maya", "--dry-run"], { home });
    expect(g.exitCode).toBe(2);
    expect(g.stderr).toMatch(/look not found: av_maya; av_maya is an avatar: give one of its looks \(lk_maya/);
    const a = await run(
      ["asset", "start", "--type", "video", "--model", "vidD-omni", "--prompt", "@hero waves", "--element", "hero=https://example.com/front.png", "--dry-run"],
      { home },
    );
    expect(a.exitCode, a.stderr).toBe(2);
    expect(a.stderr).toMatch(/at least 2 images/);
    expect((await run(["generate", ...SHORT, "--dry-run"], { home })).exitCode).toBe(0);
  });
});

describe("duplicate and the Next: line", () => {
  it("duplicate … --export --format square --watch --download out.mp4 saves the copy's MP4; both are in history", async () => {
    const out = path.join(home, "dup", "copy.mp4");
    const r = await run(["duplicate", videoId, "--voice", "vc_noah", "--export", "--format", "square", "--watch", "--download", out], { home, timeoutMs: 90_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(out);
    expect(isMp4(out)).toBe(true);
    const rows = await history();
    expect(rows.find((x) => x.kind === "export" && x.saved === out)).toBeDefined();
    expect(rows.find((x) => x.kind === "video")).toBeDefined();
  }, 120_000);

  it("after a start on a terminal, a Next: line gives the command that follows it (not with --json)", async () => {
    const d = await run(["duplicate", videoId], { home, ...terminal() });
    expect(d.exitCode, d.stderr).toBe(0);
    expect(d.stderr).toMatch(/Next: mediagen export [0-9a-f]{24} --download [0-9a-f]{24}\.mp4/);
    const x = await run(["export", videoId], { home, ...terminal() });
    expect(x.stderr).toMatch(/Next: mediagen download exp_[0-9a-f]+ --watch/);
    const j = await run(["export", videoId, "--json"], { home, ...terminal() });
    expect(j.stderr).not.toContain("Next:");
  });
});

describe("history and download", () => {
  /** One home of these three tests (apart from `home`, whose exports run on in its worker): each finds its own rows by id or as the newest. */
  let h: string;
  beforeAll(() => {
    h = newHome();
  });

  it("history reads running rows again from the target (--no-refresh shows them as recorded)", async () => {
    const a = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a red fox", "--watch", "-q", "--download", path.join(h, "x")], {
      home: h,
      timeoutMs: 60_000,
    });
    expect(a.exitCode, a.stderr).toBe(0);
    const id = path.basename(a.stdout.trim()).replace(/\.png$/, "");
    // A row left running (the CLI that started it ended before it finished).
    recordStart(h, [{ kind: "asset", id, target: "local", base_url: null, profile: "default", model: "imgA-4-fast", cost: 0.1, status: "generating" }]);
    expect((await history(h)).find((x) => x.id === id)!.status).toBe("generating");
    expect((await history(h, [])).find((x) => x.id === id)!.status).toBe("completed");
    expect((await history(h)).find((x) => x.id === id)!.status).toBe("completed");
  }, 90_000);

  it("a key pasted into a prompt is redacted in history.jsonl", async () => {
    const key = "mg_live_" + "0123456789abcdef".repeat(4);
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", `a fox, key ${key}`, "-q"], { home: h });
    expect(r.exitCode, r.stderr).toBe(0);
    const text = fs.readFileSync(path.join(h, "history.jsonl"), "utf8");
    expect(text).not.toContain("0123456789abcdef0123456789abcdef");
    expect((await history(h))[0]!.prompt).toMatch(/mg_live_\[REDACTED\]/);
  });

  it("download --name '{prompt}' names the file after the prompt, slugged, and never overwrites", async () => {
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "A Red Fox, at dawn!", "-q"], { home: h });
    const id = r.stdout.trim();
    const dir = path.join(h, "named");
    const one = await run(["download", id, "--watch", "--dir", dir, "--name", "{prompt}"], { home: h, timeoutMs: 60_000 });
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout.trim()).toBe(path.join(dir, "a-red-fox-at-dawn.png"));
    const two = await run(["download", id, "--dir", dir, "--name", "{prompt}"], { home: h });
    expect(two.stdout.trim()).toBe(path.join(dir, "a-red-fox-at-dawn-2.png"));
    expect(isPng(two.stdout.trim())).toBe(true);
    const bad = await run(["download", id, "--name", "{title}"], { home: h });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/unknown field \{title\}/);
  }, 90_000);
});

describe("the wizard's generate-and-export", () => {
  it("saves the MP4 beside the plan and prints its path (on a pseudo-terminal)", async () => {
    const dir = path.join(home, "wizard");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "short.json"), JSON.stringify([{ voice_id: "vc_noah", look_id: "lk_james_car", sequences: [{ text: "A short one." }] }]));
    const steps = [
      { expect: "Block 1 · voice Noah (vc_noah)" },
      { expect: "What next?", send: "\u001b[A\u001b[A\r" },
      { expect: "Preview it first?", send: "\r" },
      { expect: "Video format", send: "\r" },
      { expect: "Background music?", send: "\r" },
      { expect: "Make the video now?", send: "\u001b[B\u001b[B\r" },
      { expect: "--export --download" },
      { expect: "short.mp4" },
    ];
    const stepsFile = path.join(dir, "steps.json");
    fs.writeFileSync(stepsFile, JSON.stringify(steps));
    const pty = path.join(ROOT, "test", "cli", "fixtures", "pty-script.py");
    const r = await execa("python3", [pty, "100", "30", "90", stepsFile, "--", process.execPath, BIN, "plan", "edit", "short.json"], {
      env: runEnv(home, { CI: undefined, TERM: "xterm-256color", NO_COLOR: "1" }),
      cwd: dir,
      extendEnv: false,
      reject: false,
      timeout: 100_000,
    });
    const res = JSON.parse(String(r.stdout)) as { exit: number | null; failed_step: unknown; screen: string };
    expect(res.failed_step, res.screen).toBeNull();
    expect(res.exit, res.screen).toBe(0);
    expect(isMp4(path.join(dir, "short.mp4"))).toBe(true);
    expect(res.screen).toContain(path.join(dir, "short.mp4"));
  }, 120_000);
});

describe("completion reads the history through the job lives", () => {
  it("download <TAB> offers the jobs with something to save; duplicate <TAB> the videos made here", async () => {
    const exp = (await run(["export", videoId, "-q"], { home })).stdout.trim();
    const ids = await run(["__complete", "words", "--", "download", ""], { home });
    expect(ids.exitCode, ids.stderr).toBe(0);
    expect(ids.stdout).toMatch(new RegExp(`^${exp}\\texport, `, "m"));
    // A video has nothing to download: it is offered where a video is asked for.
    expect(ids.stdout).not.toMatch(new RegExp(`^${videoId}\\t`, "m"));
    const videos = await run(["__complete", "words", "--", "duplicate", ""], { home });
    expect(videos.stdout).toMatch(new RegExp(`^${videoId}\\tvideo of run_`, "m"));
  });
});
