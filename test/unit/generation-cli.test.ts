/**
 * Flags of `mediagen generate` and `mediagen duplicate`, parsed by the real commands in process with
 * a recording engine: every request field has its flag, `--body` is overridden by flags (object fields
 * merged key by key), `--script`/`--plan` read files or stdin, and a plan file is checked before
 * anything is sent, with the JSON path of every problem.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { CliError, type IO } from "../../src/cli/types.js";
import type { CommandContext, CommandModule } from "../../src/cli/command-context.js";
import { generateCommand } from "../../src/features/generation/client/cli.js";
import { command as duplicateCommand } from "../../src/features/video/client/cli.js";
import { goodPlan } from "./generation-fixtures.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-gencli-"));
const write = (name: string, data: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, data);
  return p;
};

async function runCli(mod: CommandModule, name: string, args: string[], stdin = "") {
  const calls: { op: string; body: Record<string, unknown>; opts: unknown }[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const engine = new Proxy(
    {},
    {
      // Not a thenable: `await ctx.engine()` must give the engine itself.
      get: (_t, op: string) =>
        op === "then"
          ? undefined
          : async (body: Record<string, unknown>, opts: unknown) => {
              calls.push({ op, body, opts });
              if (op === "generationStart") return { job_id: "run_x", status: "pending", estimated_credits: 5 };
              if (op === "videoDuplicate") return { video_id: "v2", status: "done", message: "ok", changes_applied: { voice_changed: true, avatar_changed: false } };
              throw new Error(`unexpected ${op}`);
            },
    },
  );
  const io: IO = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: Readable.from([stdin]),
    isStdoutTTY: false,
    isStderrTTY: false,
    canPrompt: false,
    color: false,
    out: (l) => out.push(l),
    info: (l) => err.push(l),
    warn: (l) => err.push(l),
  };
  const ctx = {
    io,
    opts: { json: false, quiet: false, debug: false, color: false, input: false },
    engine: async () => engine,
    target: async () => "local",
    print: <T>(r: T, human: (r: T) => string[]) => out.push(...human(r)),
    readBody: async (p: string) => JSON.parse(p === "-" ? stdin : fs.readFileSync(p, "utf8")) as Record<string, unknown>,
  } as unknown as CommandContext;
  const program = new Command().exitOverride();
  const cmd = program.command(name).exitOverride();
  mod.register(cmd, () => ctx, { loadAll: () => Promise.reject(new Error("no command tree here")) });
  let error: unknown;
  try {
    await program.parseAsync(["node", "mediagen", name, ...args]);
  } catch (e) {
    error = e;
  }
  return { calls, out, err, error };
}
const generate = (args: string[], stdin?: string) => runCli(generateCommand, "generate", args, stdin);

describe("mediagen generate: one flag per field", () => {
  it("maps every flag to its request field", async () => {
    const r = await generate([
      "--prompt",
      "cats",
      "--duration",
      "30",
      "--voice",
      "vc_emma",
      "--voice-url",
      "https://x.test/v.mp3",
      "--avatar",
      "lk_maya_kitchen",
      "--avatar-url",
      "https://x.test/a.png",
      "--format",
      "custom",
      "--width",
      "1280",
      "--height",
      "720",
      "--no-subtitles",
      "--music",
      "--no-broll",
      "--transitions",
      "--web-search-script",
      "--web-search-images",
      "--animate-image",
      "--animate-image-max",
      "2",
      "--animate-mode",
      "pro",
      "--native-avatar",
      "--veo3",
      "--emotion-enhancement",
      "--no-space-media",
      "--no-save-media-to-space",
      "--media-url",
      "https://x.test/1.png",
      "--media-url",
      "https://x.test/2.mp4",
      "--web-url",
      "https://x.test/page",
      "--webhook",
      "https://hooks.test/h",
    ]);
    expect(r.error).toBeUndefined();
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0]!.body).toEqual({
      prompt: "cats",
      duration: 30,
      voice_id: "vc_emma",
      voice_url: "https://x.test/v.mp3",
      avatar_id: "lk_maya_kitchen",
      avatar_url: "https://x.test/a.png",
      format: "custom",
      width: 1280,
      height: 720,
      enable: { subtitles: false, music: true, broll: false, transitions: true },
      web_search: { script: true, images: true },
      animate_image: true,
      animate_image_max: 2,
      animate_mode: "pro",
      use_native_avatar: true,
      use_veo3: true,
      emotion_enhancement: true,
      use_space_media: false,
      save_media_to_space: false,
      media_urls: ["https://x.test/1.png", "https://x.test/2.mp4"],
      web_urls: ["https://x.test/page"],
      webhook_url: "https://hooks.test/h",
    });
    expect(r.out).toEqual(["run_x"]);
    expect(r.err).toEqual(["Started generation run_x: 5 credits (estimated, debited now)"]);
  });

  it("leaves out what was not given (no default sneaks into the body), and --body is overridden key by key", async () => {
    const body = write("body.json", JSON.stringify({ prompt: "dogs", duration: 20, enable: { music: true, subtitles: false }, use_space_media: false }));
    const r = await generate(["--body", body, "--duration", "40", "--subtitles"]);
    expect(r.calls[0]!.body).toEqual({ prompt: "dogs", duration: 40, enable: { music: true, subtitles: true }, use_space_media: false });
  });

  it("--script reads a file, stdin (-), or takes the text; --simulate passes through", async () => {
    const f = write("script.txt", "From a file.");
    expect((await generate(["--script", f, "--voice", "vc_emma"])).calls[0]!.body.script).toBe("From a file.");
    expect((await generate(["--script", "-", "--voice", "vc_emma"], "From stdin.\n")).calls[0]!.body.script).toBe("From stdin.\n");
    const lit = await generate(["--script", "Just text.", "--voice", "vc_emma", "--simulate", "fail:VOICE_GENERATION_FAILED"]);
    expect(lit.calls[0]).toMatchObject({ body: { script: "Just text." }, opts: { simulate: "fail:VOICE_GENERATION_FAILED" } });
  });

  it("usage errors: nothing to make a video from, two readers of stdin, bad numbers (nothing sent)", async () => {
    for (const [args, field] of [
      [[], "--prompt"],
      [["--script", "-", "--plan", "-"], "--plan"],
      [["--prompt", "x", "--duration", "soon"], "--duration"],
      [["--prompt", "x", "--width", "12.5"], "--width"],
      [["--prompt", "x", "--simulate", "boom"], "--simulate"],
    ] as [string[], string][]) {
      const r = await generate(args);
      expect(r.error, args.join(" ")).toBeInstanceOf(CliError);
      expect([(r.error as CliError).exitCode, (r.error as CliError).field], args.join(" ")).toEqual([2, field]);
      expect(r.calls).toEqual([]);
    }
  });
});

describe("mediagen generate --plan", () => {
  it("sends a good plan (bare array or {sequence_plan}), with local paths made absolute against the plan's folder", async () => {
    const plan = goodPlan();
    plan[0]!.sequences[0]!.media!.url = "a.png";
    write("a.png", "x");
    const f = write("plan.json", JSON.stringify(plan));
    const r = await generate(["--plan", f, "--voice", "vc_emma"]);
    expect(r.error).toBeUndefined();
    const sent = r.calls[0]!.body.sequence_plan as typeof plan;
    expect(sent[0]!.sequences[0]!.media!.url).toBe(path.join(dir, "a.png"));
    expect(sent[1]).toEqual(plan[1]);
    const wrapped = write("wrapped.json", JSON.stringify({ sequence_plan: goodPlan() }));
    expect((await generate(["--plan", wrapped])).calls[0]!.body.sequence_plan).toEqual(goodPlan());
    expect((await generate(["--plan", "-"], JSON.stringify(goodPlan()))).calls[0]!.body.sequence_plan).toEqual(goodPlan());
  });

  it("refuses each broken variant with its JSON path, before sending; every problem is listed", async () => {
    const variants: [string, (p: ReturnType<typeof goodPlan>) => void, string][] = [
      ["silent sequence with a voice", (p) => void (p[1]!.voice_id = "vc_emma"), "sequence_plan[1].voice_id"],
      ["silent sequence without duration_ms", (p) => void delete p[1]!.sequences[0]!.duration_ms, "sequence_plan[1].sequences[0].duration_ms"],
      ["media with neither asset_id nor url", (p) => void (p[0]!.sequences[1]!.media = { show: "half" } as never), "sequence_plan[0].sequences[1].media"],
      ["spoken sequence with duration_ms", (p) => void (p[2]!.sequences[0]!.duration_ms = 900), "sequence_plan[2].sequences[0].duration_ms"],
    ];
    for (const [name, breakIt, field] of variants) {
      const p = goodPlan();
      breakIt(p);
      const r = await generate(["--plan", write(`${name.replace(/\W+/g, "-")}.json`, JSON.stringify(p))]);
      const e = r.error as CliError;
      expect([e?.exitCode, e?.code, e?.field], name).toEqual([2, "INVALID_PLAN", field]);
      expect(e.message).toMatch(/nothing was sent/);
      expect(r.calls).toEqual([]);
    }
    const p = goodPlan();
    p[1]!.voice_id = "vc_emma";
    p[0]!.sequences[1]!.media = { show: "half" } as never;
    const e = (await generate(["--plan", write("two.json", JSON.stringify(p))])).error as CliError;
    expect(e.message).toBe(
      `--plan: ${path.join(dir, "two.json")} has 2 problems (nothing was sent):\n` +
        "  sequence_plan[0].sequences[1].media: needs an asset_id (library media) or a url (public image or video)\n" +
        "  sequence_plan[1].voice_id: a block with a silent sequence must not have a voice_id",
    );
  });

  it("a file that cannot be read or parsed is a usage error", async () => {
    expect(((await generate(["--plan", path.join(dir, "missing.json")])).error as CliError).exitCode).toBe(2);
    expect(((await generate(["--plan", write("bad.json", "{")])).error as CliError).code).toBe("invalid_json");
  });
});

describe("mediagen duplicate", () => {
  it("maps the argument and flags; --body is overridden", async () => {
    const r = await runCli(duplicateCommand, "duplicate", ["v1", "--voice", "vc_noah", "--look", "lk_zoe_beach"]);
    expect(r.calls[0]!.body).toEqual({ video_id: "v1", voice_id: "vc_noah", avatar_look_id: "lk_zoe_beach" });
    const body = write("dup.json", JSON.stringify({ video_id: "v0", voice_id: "vc_emma" }));
    expect((await runCli(duplicateCommand, "duplicate", ["--body", body, "--look", "lk_a"])).calls[0]!.body).toEqual({
      video_id: "v0",
      voice_id: "vc_emma",
      avatar_look_id: "lk_a",
    });
    const none = await runCli(duplicateCommand, "duplicate", []);
    expect([(none.error as CliError).exitCode, (none.error as CliError).field]).toEqual([2, "video_id"]);
  });
});
