/**
 * `mediagen local webhooks trigger|resend`: a sample delivery of a task in hosted-facts' shape, signed
 * with the instance's secret, reaches `mediagen listen` (a real process) with a valid signature; a
 * resend delivers the same body with the same webhook-id; bad input is refused.
 */
import readline from "node:readline";
import fs from "node:fs";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runEnv } from "../helpers/cli.js";
import { BIN, newHome, run } from "./helpers.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

interface Event {
  body: Record<string, unknown>;
  webhook_id: string | null;
  signature: string;
}

describe("local webhooks trigger and resend", () => {
  let home: string;
  let listener: ChildProcess;
  let url: string;
  const events: Event[] = [];

  beforeAll(async () => {
    home = newHome();
    expect((await run(["local", "webhooks", "secret", "set", SECRET], { home })).exitCode).toBe(0);
    listener = spawn(process.execPath, [BIN, "listen", "--json", "--secret", SECRET], { env: runEnv(home), stdio: ["ignore", "pipe", "pipe"] });
    readline.createInterface({ input: listener.stdout! }).on("line", (l) => events.push(JSON.parse(l) as Event));
    url = await new Promise<string>((resolve) => {
      readline.createInterface({ input: listener.stderr! }).on("line", (l) => {
        if (l.startsWith('{"event":"listening"')) resolve((JSON.parse(l) as { url: string }).url);
      });
    });
  }, 30_000);
  afterAll(() => {
    listener?.kill("SIGTERM");
  });

  /** What listen printed for a delivery: it answers the sender before its line reaches this process. */
  async function eventOf(id: string): Promise<Event> {
    await expect.poll(() => events.some((x) => x.webhook_id === id)).toBe(true);
    return events.find((x) => x.webhook_id === id)!;
  }

  it("trigger video_generate: a signed delivery with the task's completed body reaches listen", async () => {
    const r = await run(["local", "webhooks", "trigger", "video_generate", "--to", url, "--wait", "--json"], { home, timeoutMs: 40_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const d = r.json<{ id: string; status: string }>();
    expect(d.status).toBe("delivered");
    const e = await eventOf(d.id);
    expect(e.signature).toBe("valid");
    expect(e.body).toMatchObject({ task: "video_generate", status: "completed", result: { cost: 5 } });
    expect(e.body.job_id).toMatch(/^run_/);
    expect(Object.keys(e.body.result as object).sort()).toEqual(["cost", "created_at", "thumbnail_url", "video_id"]);
  }, 60_000);

  it("trigger --status failed --code and --data: the failure body, with the given fields", async () => {
    const data = path.join(home, "data.json");
    fs.writeFileSync(data, JSON.stringify({ asset_id: "0123456789abcdef01234567", task: "ignored" }));
    const r = await run(
      ["local", "webhooks", "trigger", "asset_generation", "--status", "failed", "--code", "render_failed", "--data", data, "--to", url, "--wait", "--json"],
      { home, timeoutMs: 40_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const e = await eventOf(r.json<{ id: string }>().id);
    expect(e.body).toEqual({
      task: "asset_generation",
      asset_id: "0123456789abcdef01234567",
      status: "failed",
      error: { code: "render_failed", message: "Sample failure (render_failed)" },
    });
  }, 60_000);

  it("resend delivers the same body again with the same webhook-id", async () => {
    const first = events[0]!;
    const r = await run(["local", "webhooks", "resend", first.webhook_id!, "--wait", "--json"], { home, timeoutMs: 40_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    await expect.poll(() => events.filter((x) => x.webhook_id === first.webhook_id).length).toBe(2);
    const again = events.filter((x) => x.webhook_id === first.webhook_id);
    expect(again[1]!.body).toEqual(first.body);
    // Same webhook-id, as a retry: listen dedupes by id, so it reports the second one as a duplicate
    // (it only does so for a delivery whose signature checked out: a forged one stays invalid).
    expect(again[0]!.signature).toBe("valid");
    expect(again[1]!.signature).toBe("duplicate");
  }, 60_000);

  it("refuses an unknown task (exit 2), a non-http --to (exit 2) and an unknown delivery (exit 4)", async () => {
    const task = await run(["local", "webhooks", "trigger", "video_upload", "--to", url, "--json"], { home });
    expect(task.exitCode).toBe(2);
    expect(task.errorLine()?.message).toMatch(/unknown webhook task/);
    const to = await run(["local", "webhooks", "trigger", "video_export", "--to", "ftp://x", "--json"], { home });
    expect(to.exitCode).toBe(2);
    const missing = await run(["local", "webhooks", "resend", "whd_nope", "--json"], { home });
    expect(missing.exitCode).toBe(4);
  });
});
