/**
 * `listen --forward-to` forwards only deliveries the sender vouched for (a valid signature, or any
 * when no secret is known), each webhook-id once: forged, stale, unsigned and replayed posts are
 * reported, not forwarded (unless --forward-invalid), and do not count towards --count.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type WebhookEvent } from "../../src/cli/webhook-receiver.js";
import { signWebhook } from "../../src/local/webhooks.js";
import { startFixtureServer, type FixtureServer } from "../helpers/fixture-server.js";
import { newHome, run, startInProcess } from "./helpers.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
let fixture: FixtureServer;
beforeAll(async () => {
  fixture = await startFixtureServer(newHome());
});
afterAll(() => fixture.close());

const body = (id: string) => JSON.stringify({ task: "asset_generation", status: "completed", asset_id: id });

function signed(id: string, text: string, ts = Math.floor(Date.now() / 1000), secret = SECRET): Record<string, string> {
  return { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": signWebhook(secret, id, ts, text) };
}

/** A port nothing listens on now: the system's choice for a server that is closed again. */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function post(url: string, headers: Record<string, string>, text: string): Promise<void> {
  const res = await fetch(url, { method: "POST", headers, body: text });
  expect(res.status).toBe(200);
}

describe("forwarding", () => {
  it("forwards a valid delivery once; forged, stale, unsigned and replayed ones are reported, not forwarded", async () => {
    const events: WebhookEvent[] = [];
    const target = `${fixture.origin}/hook/fwd-only-valid`;
    const r = await startReceiver({ secret: SECRET, forwardTo: target, onEvent: (e) => events.push(e) });
    try {
      const ok = body("good");
      await post(r.url, signed("whd_good", ok), ok);
      await post(r.url, signed("whd_good", ok), ok); // replay
      await post(r.url, signed("whd_forged", body("forged"), undefined, "whsec_" + Buffer.from("other").toString("base64")), body("forged"));
      await post(r.url, signed("whd_stale", body("stale"), Math.floor(Date.now() / 1000) - 3600), body("stale"));
      await post(r.url, { "content-type": "application/json" }, body("unsigned"));
    } finally {
      await r.close();
    }
    expect(events.map((e) => e.signature)).toEqual(["valid", "duplicate", "invalid", "invalid", "missing"]);
    expect(events.filter((e) => e.forwarded).map((e) => e.webhook_id)).toEqual(["whd_good"]);
    expect(events.slice(1).every((e) => e.not_forwarded)).toBe(true);
    const got = fixture.hooks.filter((h) => h.path === "/hook/fwd-only-valid");
    expect(got.map((h) => (h.body as { asset_id: string }).asset_id)).toEqual(["good"]);
  });

  it("--forward-invalid forwards them all", async () => {
    const events: WebhookEvent[] = [];
    const target = `${fixture.origin}/hook/fwd-all`;
    const r = await startReceiver({ secret: SECRET, forwardTo: target, forwardInvalid: true, onEvent: (e) => events.push(e) });
    try {
      await post(r.url, { "content-type": "application/json" }, body("unsigned"));
    } finally {
      await r.close();
    }
    expect(events[0]!.forwarded?.status).toBe(200);
    expect(fixture.hooks.filter((h) => h.path === "/hook/fwd-all")).toHaveLength(1);
  });
});

describe("listen --count", () => {
  it("counts only trusted deliveries: forged posts and replays do not end it", async () => {
    const home = newHome();
    expect((await run(["local", "webhooks", "secret", "set", SECRET, "-q"], { home })).exitCode).toBe(0);
    // A port the system just handed out (and took back) is free; a random one may not be.
    const port = await freePort();
    const running = startInProcess(["listen", "--port", String(port), "--count", "1", "--json"], { home });
    let ended = false;
    void running.result.finally(() => (ended = true));
    const url = `http://127.0.0.1:${port}/webhook`;
    const up = () =>
      fetch(url).then(
        (x) => x.ok,
        () => false,
      );
    // Up to 30 s for the listener on a loaded machine; a listener that ended says why.
    for (let i = 0; i < 1200 && !ended && !(await up()); i++) await new Promise((r) => setTimeout(r, 25));
    if (ended) expect((await running.result).stderr).toBe("the listener running");
    for (let i = 0; i < 3; i++) await post(url, signed(`whd_f${i}`, body("x"), undefined, "whsec_" + Buffer.from("forger").toString("base64")), body("x"));
    const ok = body("real");
    await post(url, signed("whd_real", ok), ok);
    const r = await running.result;
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as WebhookEvent);
    expect(lines.map((e) => e.signature)).toEqual(["invalid", "invalid", "invalid", "valid"]);
  });
});
