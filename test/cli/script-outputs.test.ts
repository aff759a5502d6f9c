/**
 * Outputs for scripts (issue 38): one JSON document with the saved path, `credits -q` is the
 * balance, `download <video_id>` of an exported video saves its export's MP4, the key-format hint
 * reads whole, and colour never changes a table's layout.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips the colour escapes to compare layouts.
const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "");

describe("outputs for scripts", () => {
  let home: string;
  beforeAll(() => {
    home = newHome();
  });

  it("asset start --watch --json --download d/: the saved path is in the JSON document on stdout", async () => {
    const dir = path.join(home, "d");
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "a red kite", "--watch", "--json", "--download", dir], {
      home,
      timeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = r.json<{ asset_id: string; status: string; saved: string }>();
    expect(doc.status).toBe("completed");
    expect(doc.saved.startsWith(dir)).toBe(true);
    expect(fs.existsSync(doc.saved)).toBe(true);
  });

  it("credits -q prints the balance (whoami -q still the space)", async () => {
    const who = (await run(["whoami", "--json"], { home })).json<{ balance: number; space: { id: string } }>();
    const q = await run(["credits", "-q"], { home });
    expect(q.exitCode, q.stderr).toBe(0);
    expect(q.stdout).toBe(`${who.balance}\n`);
    expect((await run(["whoami", "-q"], { home })).stdout).toBe(`${who.space.id}\n`);
  });

  it("download <video_id> of a video already exported saves its export's MP4", async () => {
    const g = await run(["generate", "--prompt", "a lighthouse at dusk", "--duration", "10", "--watch", "--json"], { home, timeoutMs: 90_000 });
    expect(g.exitCode, g.stderr).toBe(0);
    const videoId = g.json<{ result: { video_id: string } }>().result.video_id;
    const e = await run(["export", videoId, "--watch", "--json"], { home, timeoutMs: 90_000 });
    expect(e.exitCode, e.stderr).toBe(0);
    const exportId = e.json<{ job_id: string }>().job_id;
    const dir = path.join(home, "videos");
    const d = await run(["download", videoId, "--dir", dir], { home, timeoutMs: 60_000 });
    expect(d.exitCode, d.stderr).toBe(0);
    expect(d.stderr).toContain(`saving the MP4 of its export ${exportId}`);
    expect(d.stdout.trim()).toBe(path.join(dir, `${exportId}.mp4`));
    expect(fs.statSync(d.stdout.trim()).size).toBeGreaterThan(1000);
  }, 180_000);

  it("the key-format hint reads whole: no [REDACTED] in it", async () => {
    const r = await run(["folder", "list"], { home: newHome(), env: { MEDIAGEN_API_KEY: "mg_live_abc" } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain("Bearer <API_KEY>, where the key is mg_live_ followed by 64 hexadecimal characters");
    expect(r.stderr).not.toContain("REDACTED");
  });

  it("history at 40 columns: the same layout with NO_COLOR, CI or colour, and STATUS and credits kept", async () => {
    const home = newHome();
    const started = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "a blue kite"], { home });
    expect(started.exitCode, started.stderr).toBe(0);
    const tty = { tty: { stdout: true, columns: 40 } };
    const colour = await run(["history", "--no-refresh"], { home, env: { CI: undefined, FORCE_COLOR: "1" }, ...tty });
    const noColour = await run(["history", "--no-refresh"], { home, env: { CI: undefined, NO_COLOR: "1" }, ...tty });
    const ci = await run(["history", "--no-refresh"], { home, env: { CI: "1" }, ...tty });
    expect(plain(colour.stdout)).toBe(noColour.stdout);
    expect(ci.stdout).toBe(noColour.stdout);
    expect(noColour.stdout).toMatch(/generating|completed/);
    expect(noColour.stdout).toMatch(/\d+ credits?/);
  });
});
