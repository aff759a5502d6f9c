/**
 * Issue 20's "done when": every start of the operation table (src/features/lives.ts), through each
 * surface that offers it (the CLI, MCP and batch), on both targets (the local instance in process,
 * and `mediagen serve` through the hosted client), lands in `history`, and `download <id>` saves the
 * right file (checked by its signature and content) or says what to run first. Renders are short.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";
import { assertBuilt, childEnv, createKey, startServe, type ServeChild } from "../http/serve-child.js";
import { startSession, body, type Session } from "../mcp/helpers.js";
import { lifeOps, lifeOf } from "../../src/features/lives.js";

interface Entry {
  kind: string;
  id: string;
  target: string;
  status: string;
  saved: string | null;
  video_id?: string;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const isPicture = (b: Buffer) => b.subarray(0, 4).equals(PNG) || b.subarray(0, 3).equals(JPEG);
const isMp4 = (b: Buffer) => b.subarray(4, 8).toString("latin1") === "ftyp";

/** What `download` must do for each kind of job: save a file that passes `check`, or refuse and name the next command. */
const DOWNLOADS: Record<string, { check?: (b: Buffer) => boolean; refuses?: RegExp }> = {
  asset: { check: isPicture },
  look: { check: isPicture },
  generation: { check: isPicture },
  export: { check: isMp4 },
  video: { refuses: /mediagen export \S+ --download/ },
  script: {},
};

/** The generations' video, as small as a video goes: what is checked is where it lands, not how it looks. */
const SMALL = { format: "custom", width: 90, height: 160 } as const;

/** The CLI starts of every operation the CLI offers, in the order their inputs allow. */
const CLI_STARTS = ["assetStart", "avatarCreate", "avatarEdit", "generationStart", "exportStart", "videoDuplicate", "scriptGenerate", "folderCreate"];

for (const targetName of ["local", "hosted"] as const) {
  describe(`every start of the table, on the ${targetName} target`, () => {
    let home: string;
    let serve: ServeChild | undefined;
    let servedHome: string | undefined;
    let args: string[] = [];
    let env: Record<string, string | undefined> = {};
    const out = () => path.join(home, "out");
    const cli = (words: string[], timeoutMs = 60_000) => run([...words, ...args], { home, env, timeoutMs });

    beforeAll(async () => {
      home = newHome();
      if (targetName === "hosted") {
        assertBuilt();
        servedHome = newHome();
        const serveEnv = childEnv(servedHome);
        const key = await createKey(serveEnv, "PRO", 500);
        serve = await startServe(serveEnv);
        args = ["--target", "hosted", "--base-url", serve.baseUrl];
        env = { MEDIAGEN_API_KEY: key, NO_PROXY: "*", HTTP_PROXY: undefined, http_proxy: undefined };
      }
    }, 60_000);
    afterAll(async () => {
      await serve?.stop("SIGTERM");
      if (servedHome) fs.rmSync(servedHome, { recursive: true, force: true });
    });

    const history = async () => (await run(["history", "--json", "--no-refresh", "--limit", "0"], { home })).json<Entry[]>();

    /** The row is in history, and download saves the right file or names the command to run first. */
    async function landsAndDownloads(kind: string, id: string): Promise<void> {
      const rows = await history();
      expect(
        rows.find((r) => r.id === id && r.kind === kind),
        `${kind} ${id} in history`,
      ).toBeDefined();
      const want = DOWNLOADS[kind]!;
      const d = await cli(["download", id, "--watch", "--dir", path.join(out(), kind), "--force"]);
      if (want.refuses) {
        expect(d.exitCode).toBe(2);
        expect(d.stderr).toMatch(want.refuses);
        return;
      }
      expect(d.exitCode, d.stderr).toBe(0);
      const file = d.stdout.trim();
      const bytes = fs.readFileSync(file);
      if (want.check) expect(want.check(bytes), `${kind} ${file}`).toBe(true);
      else expect(bytes.length).toBeGreaterThan(0);
      expect((await history()).find((r) => r.id === id)?.saved).toBe(file);
    }

    it("the table's starts are exactly those this test walks", () => {
      const starts = lifeOps().filter((op) => lifeOf(op).effect !== "read");
      expect(new Set(starts)).toEqual(new Set(CLI_STARTS));
    });

    let videoId = "";
    it("through the CLI: each start is recorded and its result downloads (or a video says to export it)", async () => {
      const a = await cli(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a red fox", "-q"]);
      expect(a.exitCode, a.stderr).toBe(0);
      await landsAndDownloads("asset", a.stdout.trim());

      const c = await cli(["avatar", "create", "--prompt", "a friendly barista", "--json"]);
      expect(c.exitCode, c.stderr).toBe(0);
      await landsAndDownloads("look", c.json<{ look_id: string }>().look_id);

      const e = await cli(["avatar", "edit", "--avatar", "av_maya", "--look", "lk_maya_kitchen", "--prompt", "in a bakery", "--json"]);
      expect(e.exitCode, e.stderr).toBe(0);
      await landsAndDownloads("look", e.json<{ look_id: string }>().look_id);

      const g = await cli([
        "generate",
        "--script",
        "Hi.",
        "--voice",
        "vc_emma",
        "--avatar",
        "lk_zoe_podcast",
        "--format",
        SMALL.format,
        "--width",
        String(SMALL.width),
        "--height",
        String(SMALL.height),
        "-q",
      ]);
      expect(g.exitCode, g.stderr).toBe(0);
      const job = g.stdout.trim();
      await landsAndDownloads("generation", job);
      videoId = (await history()).find((r) => r.id === job)!.video_id!;
      expect(videoId).toMatch(/^[0-9a-f]{24}$/);
      // The generation's video, asked for by its id: a video, exported with…
      const v = await cli(["download", videoId]);
      expect(v.exitCode).toBe(2);
      expect(v.stderr).toContain(`mediagen export ${videoId} --download`);

      const x = await cli(["export", videoId, "-q"]);
      expect(x.exitCode, x.stderr).toBe(0);
      await landsAndDownloads("export", x.stdout.trim());

      const dup = await cli(["duplicate", videoId, "-q"]);
      expect(dup.exitCode, dup.stderr).toBe(0);
      await landsAndDownloads("video", dup.stdout.trim());

      const s = await cli(["script", "--prompt", "Three tips for better sleep", "--duration", "10"]);
      expect(s.exitCode, s.stderr).toBe(0);
      const script = (await history()).find((r) => r.kind === "script")!;
      await landsAndDownloads("script", script.id);
      expect(fs.readFileSync(path.join(out(), "script", `${script.id}.txt`), "utf8")).toBe(s.stdout.replace(/\n$/, ""));

      // A free start that makes no job: nothing to follow, nothing in history.
      const before = (await history()).length;
      const f = await cli(["folder", "create", "--name", "clips"]);
      expect(f.exitCode, f.stderr).toBe(0);
      expect((await history()).length).toBe(before);
    }, 240_000);

    it("through MCP: each start tool is recorded and its result downloads", async () => {
      expect(videoId).not.toBe("");
      const s: Session = await startSession(home, ["--allow-dir", home], { env, globalArgs: args });
      try {
        const call = async (name: string, a: Record<string, unknown>) => {
          const r = await s.client.callTool({ name, arguments: a });
          expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
          return body(r);
        };
        const asset = await call("asset_start", { type: "image", model: "imgA-4-fast", prompt: "a blue fox" });
        await landsAndDownloads("asset", (asset.asset_ids as string[])[0]!);
        const look = await call("avatar_create", { prompt: "a calm chef" });
        await landsAndDownloads("look", look.look_id as string);
        const edit = await call("avatar_edit", { avatar_id: "av_maya", look_id: "lk_maya_kitchen", prompt: "on a beach" });
        await landsAndDownloads("look", edit.look_id as string);
        const gen = await call("generation_start", { script: "Hello.", voice_id: "vc_emma", avatar_id: "lk_zoe_podcast", ...SMALL });
        await landsAndDownloads("generation", gen.job_id as string);
        const exp = await call("export_start", { video_id: videoId });
        await landsAndDownloads("export", exp.job_id as string);
        const dup = await call("video_duplicate", { video_id: videoId });
        await landsAndDownloads("video", dup.video_id as string);
        const before = (await history()).filter((r) => r.kind === "script").length;
        await call("script_generate", { prompt: "Two tips for focus", duration: 10 });
        const scripts = (await history()).filter((r) => r.kind === "script");
        expect(scripts.length).toBe(before + 1);
        await landsAndDownloads("script", scripts[0]!.id);
      } finally {
        await s.close();
      }
    }, 240_000);

    it("through batch: each line's start is recorded and downloads", async () => {
      const file = path.join(home, "batch.jsonl");
      const lines = [
        { kind: "asset", type: "image", model: "imgA-4-fast", prompt: "a green fox" },
        { kind: "avatar", prompt: "a smiling gardener" },
        { kind: "export", video_id: videoId },
        { kind: "duplicate", video_id: videoId },
        { kind: "script", prompt: "One tip for rest", duration: 10 },
      ];
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
      const before = new Set((await history()).map((r) => r.id));
      const b = await cli(["batch", "run", file, "--out", path.join(home, "batch-out"), "--json"], 180_000);
      expect(b.exitCode, b.stderr).toBe(0);
      const fresh = (await history()).filter((r) => !before.has(r.id));
      expect(new Set(fresh.map((r) => r.kind))).toEqual(new Set(["asset", "look", "export", "video", "script"]));
      for (const r of fresh) await landsAndDownloads(r.kind, r.id);
    }, 240_000);
  });
}
