/**
 * `mediagen listen` (the built binary, a real process) and `--webhook-listen`, on a local instance
 * that signs its deliveries (`local webhooks secret set`): the webhooks of an asset start and of an
 * export arrive with a valid signature, a delivery with a bad signature is still answered 200 but
 * marked invalid (and warned about), `--forward-to` passes body and headers on to a fixture server,
 * and `asset start --webhook-listen` / `generate --webhook-listen` receive their own job's webhook.
 */
import { execa, type ResultPromise } from "execa";
import http from "node:http";
import type { AddressInfo } from "node:net";
import readline from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signWebhook } from "../../src/local/webhooks.js";
import { verifyStandardWebhook } from "../../src/cli/webhook-verify.js";
import { startFixtureServer, type FixtureServer } from "../helpers/fixture-server.js";
import { runEnv } from "../helpers/cli.js";
import { BIN, newHome, run, startInProcess } from "./helpers.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

interface Event {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  webhook_id: string | null;
  signature: string;
  signature_error?: string;
  forwarded?: { url: string; status: number | null };
}

interface Listener {
  url: string;
  events: Event[];
  stderr: string[];
  /** Resolves with the first event (already received or to come) that `match` accepts. */
  next(match: (e: Event) => boolean, timeoutMs?: number): Promise<Event>;
  stop(): Promise<{ exitCode: number | undefined; stderr: string }>;
  /** Its end, when it stops by itself (--count): no signal is sent, which could land in its exit. */
  ended(): Promise<{ exitCode: number | undefined; stderr: string }>;
}

let home: string;
let fixture: FixtureServer;

/** `mediagen listen --json <args>` as a real process; resolves once it has printed its URL. */
async function listen(args: string[], env: Record<string, string | undefined> = {}): Promise<Listener> {
  const child: ResultPromise = execa(process.execPath, [BIN, "listen", "--json", ...args], {
    env: runEnv(home, env),
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: 120_000,
  });
  const events: Event[] = [];
  const stderr: string[] = [];
  const waiters: (() => void)[] = [];
  readline.createInterface({ input: child.stdout! }).on("line", (l) => {
    events.push(JSON.parse(l) as Event);
    for (const w of waiters.splice(0)) w();
  });
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stderr! }).on("line", (l) => {
      stderr.push(l);
      if (l.startsWith('{"event":"listening"')) resolve((JSON.parse(l) as { url: string }).url);
    });
    void child.then((r) => reject(new Error(`listen ended: ${r.stderr}`)));
  });
  return {
    url,
    events,
    stderr,
    next(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching delivery; got ${JSON.stringify(events.map((e) => e.body))}`)), timeoutMs);
        const check = () => {
          const e = events.find(match);
          if (e) {
            clearTimeout(timer);
            resolve(e);
          } else waiters.push(check);
        };
        check();
      });
    },
    async stop() {
      child.kill("SIGINT");
      const r = await child;
      return { exitCode: r.exitCode, stderr: String(r.stderr) };
    },
    async ended() {
      const r = await child;
      return { exitCode: r.exitCode, stderr: String(r.stderr) };
    },
  };
}

beforeAll(async () => {
  home = newHome();
  fixture = await startFixtureServer(home);
  const s = await run(["local", "webhooks", "secret", "set", SECRET, "-q"], { home });
  expect(s.exitCode, s.stderr).toBe(0);
});
afterAll(() => fixture?.close());

describe("the signature check", () => {
  it("accepts what the local instance signs, and refuses a changed body, another secret, a stale timestamp", () => {
    const body = '{"task":"asset_generation","status":"completed"}';
    const now = Date.now();
    const ts = Math.floor(now / 1000);
    const h = { "webhook-id": "whd_1", "webhook-timestamp": String(ts), "webhook-signature": signWebhook(SECRET, "whd_1", ts, body) };
    expect(verifyStandardWebhook(SECRET, h, body, now)).toEqual({ signature: "valid" });
    expect(verifyStandardWebhook(SECRET, { ...h, "webhook-signature": `v1,bm9wZQ== ${h["webhook-signature"]}` }, body, now).signature).toBe("valid");
    expect(verifyStandardWebhook(SECRET, h, body.replace("completed", "failed"), now).signature).toBe("invalid");
    expect(verifyStandardWebhook("whsec_" + Buffer.from("other").toString("base64"), h, body, now).signature).toBe("invalid");
    expect(verifyStandardWebhook(SECRET, h, body, now + 301_000)).toMatchObject({ signature: "invalid", reason: expect.stringMatching(/300 s/) });
    expect(verifyStandardWebhook(SECRET, { "webhook-id": "whd_1" }, body, now)).toMatchObject({ signature: "missing" });
    expect(verifyStandardWebhook(undefined, h, body, now)).toEqual({ signature: "unchecked" });
  });
});

describe("mediagen listen on the local instance", () => {
  it("receives an asset start's and an export's webhooks, signed; a bad signature is answered but marked invalid", async () => {
    const l = await listen([]);
    expect(l.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
    try {
      const models = await run(["asset", "models", "--type", "image", "-q"], { home });
      const asset = await run(["asset", "start", "--type", "image", "--model", models.stdout.split("\n")[0]!, "--prompt", "a lighthouse", "--webhook-url", l.url, "-q"], {
        home,
      });
      expect(asset.exitCode, asset.stderr).toBe(0);
      const assetId = asset.stdout.trim();
      const a = await l.next((e) => e.body.asset_id === assetId);
      expect(a).toMatchObject({ method: "POST", signature: "valid", body: { task: "asset_generation", status: "completed" } });
      expect(a.webhook_id).toMatch(/^whd_/);
      // A header whose name says signature is shown redacted (the verdict above says what it held).
      expect(a.headers["webhook-signature"]).toBe("[redacted]");

      // A small custom frame: the webhook, not the picture, is under test.
      const small = ["--format", "custom", "--width", "180", "--height", "320"];
      const gen = await run(
        ["generate", "--script", "Hello from the listener test.", "--voice", "vc_emma", "--avatar", "lk_maya_kitchen", ...small, "--watch", "--json"],
        {
          home,
          timeoutMs: 90_000,
        },
      );
      expect(gen.exitCode, gen.stderr).toBe(0);
      const videoId = gen.json<{ result: { video_id: string } }>().result.video_id;
      const exp = await run(["export", videoId, "--webhook", l.url, "--json"], { home });
      expect(exp.exitCode, exp.stderr).toBe(0);
      const jobId = exp.json<{ job_id: string }>().job_id;
      const x = await l.next((e) => e.body.job_id === jobId, 90_000);
      expect(x).toMatchObject({ signature: "valid", body: { task: "video_export", status: "completed" } });

      // A delivery whose signature does not match its body.
      const body = JSON.stringify({ task: "video_export", status: "completed", job_id: "forged" });
      const ts = Math.floor(Date.now() / 1000);
      const res = await fetch(l.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": "whd_forged",
          "webhook-timestamp": String(ts),
          "webhook-signature": signWebhook(SECRET, "whd_forged", ts, body.replace("forged", "other")),
        },
        body,
      });
      expect(res.status).toBe(200);
      const f = await l.next((e) => e.body.job_id === "forged");
      expect(f).toMatchObject({ signature: "invalid", webhook_id: "whd_forged" });
      expect(f.signature_error).toMatch(/no v1 signature matches/);
    } finally {
      const stopped = await l.stop();
      expect(stopped.exitCode).toBe(0);
      expect(stopped.stderr).toMatch(/warning: delivery whd_forged has an invalid signature/);
      // The secret is never printed.
      expect(stopped.stderr + JSON.stringify(l.events)).not.toContain(SECRET.slice(6));
    }
  }, 180_000);

  it("--forward-to passes the body and headers on; without a secret signatures are unchecked", async () => {
    const l = await listen(["--forward-to", `${fixture.origin}/hook/forwarded`, "--count", "1"], { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: fixture.origin });
    const body = JSON.stringify({ task: "asset_generation", status: "failed", asset_id: "a1", error: { code: "generation_failed", message: "no" } });
    const res = await fetch(l.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-custom": "kept", "webhook-id": "whd_fwd", authorization: "Bearer s3cr3t-token" },
      body,
    });
    expect(res.status).toBe(200);
    const e = await l.next(() => true);
    expect(e).toMatchObject({ signature: "unchecked", forwarded: { url: `${fixture.origin}/hook/forwarded`, status: 200 } });
    const hook = fixture.hooks.find((h) => h.path === "/hook/forwarded")!;
    expect(hook.body).toEqual(JSON.parse(body));
    expect(hook.headers).toMatchObject({ "content-type": "application/json", "x-custom": "kept", "webhook-id": "whd_fwd", authorization: "Bearer s3cr3t-token" });
    // Forwarded as it came, but never printed.
    expect(e.headers.authorization).toBe("[redacted]");
    expect(JSON.stringify(l.events)).not.toContain("s3cr3t-token");
    // --count 1: it stops by itself after the delivery.
    const stopped = await l.ended();
    expect(stopped.exitCode).toBe(0);
  });

  it("on a terminal: a readable line per delivery and its body; the URL on stderr", async () => {
    // A free port, then the receiver on it (in process, stdout a terminal).
    const probe = await new Promise<number>((resolve) => {
      const srv = http.createServer().listen(0, "127.0.0.1", () => {
        const p = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const running = startInProcess(["listen", "--port", String(probe), "--count", "1"], { home, tty: { stdout: true, stderr: true } });
    const url = `http://127.0.0.1:${probe}/webhook`;
    // Up to 30 s for the listener on a loaded machine.
    for (let i = 0; i < 1200; i++) {
      const up = await fetch(url).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const body = JSON.stringify({ task: "avatar_create", status: "completed", avatar_id: "av_1", look_id: "lk_1" });
    expect((await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })).status).toBe(200);
    // An unsigned delivery does not count towards --count (a secret is known): a signed one ends it.
    const ts = Math.floor(Date.now() / 1000);
    const signed = {
      "content-type": "application/json",
      "webhook-id": "whd_tty",
      "webhook-timestamp": String(ts),
      "webhook-signature": signWebhook(SECRET, "whd_tty", ts, body),
    };
    expect((await fetch(url, { method: "POST", headers: signed, body })).status).toBe(200);
    const r = await running.result;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Listening for webhooks at ${url}`);
    expect(r.stdout).toMatch(
      /^\d\d:\d\d:\d\d POST \/webhook avatar_create completed · look_id lk_1 · signature MISSING: no webhook-id, webhook-timestamp, webhook-signature header\n/,
    );
    expect(r.stdout).toContain('  "avatar_id": "av_1",');
    expect(r.stderr).toMatch(/warning: delivery #1 has no signature/);
  });

  it("refuses a bad --port or --forward-to (exit 2)", async () => {
    for (const args of [
      ["--port", "70000"],
      ["--forward-to", "ftp://x"],
      ["--count", "0"],
    ]) {
      const r = await run(["listen", ...args], { home });
      expect(r.exitCode, args.join(" ")).toBe(2);
    }
  });

  it("--count takes a whole number in decimal digits: 0x2, 1e1 and 1.5 are usage errors naming it, as every flag's", async () => {
    for (const count of ["0x2", "1e1", "1.5"]) {
      const r = await run(["listen", "--count", count, "--json"], { home });
      expect(r.exitCode, count).toBe(2);
      expect(r.errorLine()).toMatchObject({ code: "invalid_value", field: "--count", message: `--count: expected a whole number of at least 1, got "${count}"` });
    }
  });
});

describe("--webhook-listen on start commands", () => {
  it("asset start --webhook-listen: the job's own webhook, signature valid, reported on stderr; stdout keeps the result", async () => {
    const models = await run(["asset", "models", "--type", "image", "-q"], { home });
    const r = await run(["asset", "start", "--type", "image", "--model", models.stdout.split("\n")[0]!, "--prompt", "a barn owl", "--webhook-listen"], {
      home,
      timeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(r.stderr).toMatch(/Listening for this job's webhook at http:\/\/127\.0\.0\.1:\d+\/webhook/);
    expect(r.stderr).toMatch(new RegExp(`Webhook received: .* asset_generation completed · asset_id ${id} · signature valid`));
    // The worker records the delivery once the receiver has answered: read the log until it has.
    let row: { url: string; status: string; payload: { asset_id?: string } } | undefined;
    for (let i = 0; i < 100 && row?.status !== "delivered"; i++) {
      if (i) await new Promise((r) => setTimeout(r, 100));
      const log = (await run(["local", "webhooks", "--json"], { home })).json<{ url: string; status: string; payload: { asset_id?: string } }[]>();
      row = log.find((d) => d.payload.asset_id === id);
    }
    expect(row).toMatchObject({ status: "delivered", url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/) });
  }, 60_000);

  it("avatar create --webhook-listen --watch: the look's webhook arrives after the wait", async () => {
    const r = await run(["avatar", "create", "--prompt", "a calm librarian", "--watch", "--webhook-listen", "--json"], { home, timeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const ev = r.stderr
      .split("\n")
      .filter((l) => l.startsWith('{"event":"webhook"'))
      .map((l) => JSON.parse(l) as Event);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ signature: "valid", body: { task: "avatar_create", status: "completed" } });
    // stdout is the command's own result, unchanged.
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  }, 60_000);

  it("a failed job's webhook is awaited too (exit 7 kept); --json reports it as an NDJSON event on stderr", async () => {
    const models = await run(["asset", "models", "--type", "image", "-q"], { home });
    const r = await run(
      ["asset", "start", "--type", "image", "--model", models.stdout.split("\n")[0]!, "--prompt", "x", "--simulate", "fail", "--watch", "--webhook-listen", "--json"],
      { home, timeoutMs: 60_000 },
    );
    expect(r.exitCode, r.stderr).toBe(7);
    const ev = r.stderr
      .split("\n")
      .filter((l) => l.startsWith('{"event":"webhook"'))
      .map((l) => JSON.parse(l) as Event);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ signature: "valid", body: { task: "asset_generation", status: "failed" } });
  }, 60_000);

  it("is refused with an explicit webhook URL, and on a hosted target it cannot reach", async () => {
    const both = await run(["generate", "--prompt", "x", "--duration", "10", "--webhook", "https://example.com/h", "--webhook-listen"], { home });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/drop --webhook/);
    const hosted = await run(["--target", "hosted", "--base-url", "https://api.example.com/api/public/v1", "export", "0123456789abcdef01234567", "--webhook-listen"], {
      home,
      env: { MEDIAGEN_API_KEY: "mg_live_" + "ab".repeat(32) },
    });
    expect(hosted.exitCode).toBe(2);
    expect(hosted.stderr).toMatch(/cannot reach 127\.0\.0\.1 on this machine/);
  });
});
