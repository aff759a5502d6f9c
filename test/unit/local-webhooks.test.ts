import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../src/local/clock.js";
import { webhookTiming } from "../../src/local/webhook-kind.js";
import type { WebhookPayload } from "../../src/contract/webhook.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  method: string;
}

let server: http.Server;
let base: string;
let received: Received[] = [];
let answers: number[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push({ headers: req.headers, body, method: req.method ?? "" });
      const status = answers.shift() ?? 200;
      if (status === 0) return; // never answer: the sender must time out
      res.writeHead(status, status === 302 ? { location: "http://127.0.0.1:1/" } : {});
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const open: TestInstance[] = [];
afterEach(async () => {
  received = [];
  answers = [];
  webhookTiming.timeoutMs = 10_000;
  for (const t of open.splice(0)) await t.close();
});

function setup() {
  const clock = new ManualClock(Date.UTC(2025, 2, 3, 4, 5, 6));
  const t = openTestInstance({ worker: "none", clock });
  open.push(t);
  const spaceId = t.spaceForKey(t.key)!.id;
  return { t, clock, spaceId };
}

const payload: WebhookPayload = {
  task: "asset_generation",
  status: "completed",
  asset_id: "a1",
  result: { asset_url: "file:///x.png", asset_type: "image", width: 1024, height: 1024 },
};

describe("webhook delivery", () => {
  test("one POST with the hosted headers, recorded and marked delivered", async () => {
    const { t, spaceId } = setup();
    const id = t.tx(() => t.webhooks.enqueue(spaceId, `${base}/hook`, payload));
    expect(t.webhookDeliveries()[0]).toMatchObject({ id, status: "pending", attempts: 0, task: "asset_generation" });
    await t.runUntilIdle();
    expect(received).toHaveLength(1);
    const r = received[0]!;
    expect(r.method).toBe("POST");
    expect(JSON.parse(r.body)).toEqual(payload);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["user-agent"]).toBe("mediagen-local/0.1.0");
    expect(r.headers["x-mediagen-webhook"]).toBe("1");
    expect(r.headers["webhook-signature"]).toBeUndefined();
    const [d] = t.webhookDeliveries(spaceId);
    expect(d).toMatchObject({
      id,
      space_id: spaceId,
      url: `${base}/hook`,
      status: "delivered",
      attempts: 1,
      last_status: 200,
      last_error: null,
      delivered_at: "2025-03-03T04:05:06.000Z",
      payload,
    });
    expect(d!.attempt_log).toEqual([{ attempt: 1, status_code: 200, error: null, duration_ms: expect.any(Number), at: "2025-03-03T04:05:06.000Z" }]);
  });

  test("a 500 is retried after 1 s (queue time, not a sleep), then delivered", async () => {
    const { t, clock, spaceId } = setup();
    answers = [500, 204];
    t.tx(() => t.webhooks.enqueue(spaceId, `${base}/hook`, payload));
    await t.runUntilIdle();
    expect(received).toHaveLength(1);
    expect(t.webhookDeliveries()[0]).toMatchObject({ status: "pending", attempts: 1, last_status: 500, last_error: "receiver answered HTTP 500" });
    clock.advance(999);
    await t.runUntilIdle();
    expect(received).toHaveLength(1);
    clock.advance(1);
    await t.runUntilIdle();
    expect(received).toHaveLength(2);
    const d = t.webhookDeliveries()[0]!;
    expect(d).toMatchObject({ status: "delivered", attempts: 2, last_status: 204, last_error: null });
    expect(d.attempt_log.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 204],
    ]);
  });

  test("three failures (1 s, then 2 s apart) end the delivery failed", async () => {
    const { t, clock, spaceId } = setup();
    answers = [500, 503, 302];
    t.tx(() => t.webhooks.enqueue(spaceId, `${base}/hook`, payload));
    await t.runUntilIdle();
    clock.advance(1000);
    await t.runUntilIdle();
    clock.advance(1999);
    await t.runUntilIdle();
    expect(received).toHaveLength(2);
    clock.advance(1);
    await t.runUntilIdle();
    expect(received).toHaveLength(3);
    clock.advance(60_000);
    await t.runUntilIdle();
    expect(received).toHaveLength(3);
    const d = t.webhookDeliveries()[0]!;
    expect(d).toMatchObject({ status: "failed", attempts: 3, last_status: 302, last_error: "receiver answered HTTP 302" });
    expect(d.attempt_log.map((a) => a.status_code)).toEqual([500, 503, 302]);
    expect(t.jobs.list({ kind: "webhook" })[0]).toMatchObject({ status: "failed", attempts: 3 });
  });

  test("an unreachable receiver and a silent one are recorded as errors", async () => {
    const { t, spaceId } = setup();
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    webhookTiming.timeoutMs = 150;
    answers = [0];
    t.tx(() => t.webhooks.enqueue(spaceId, `http://127.0.0.1:${deadPort}/hook`, payload));
    t.tx(() => t.webhooks.enqueue(spaceId, `${base}/silent`, payload));
    await t.runUntilIdle();
    const [dead, silent] = t.webhookDeliveries();
    expect(dead!.attempt_log[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(silent!.attempt_log[0]).toMatchObject({ status_code: null, error: "timed out after 150 ms" });
    expect(dead!.status).toBe("pending");
  });

  test("with a secret, Standard Webhooks headers sign id.timestamp.body, the id stable across retries", async () => {
    const { t, clock, spaceId } = setup();
    const key = crypto.randomBytes(24);
    const secret = "whsec_" + key.toString("base64");
    t.setSetting("webhook_secret", secret);
    answers = [500, 200];
    const id = t.tx(() => t.webhooks.enqueue(spaceId, `${base}/signed`, payload));
    await t.runUntilIdle();
    clock.advance(1000);
    await t.runUntilIdle();
    expect(received).toHaveLength(2);
    const stamps = [Date.UTC(2025, 2, 3, 4, 5, 6) / 1000, Date.UTC(2025, 2, 3, 4, 5, 7) / 1000];
    received.forEach((r, i) => {
      expect(r.headers["webhook-id"]).toBe(id);
      expect(r.headers["webhook-timestamp"]).toBe(String(stamps[i]));
      const expected = crypto.createHmac("sha256", key).update(`${id}.${stamps[i]}.${r.body}`).digest("base64");
      expect(r.headers["webhook-signature"]).toBe(`v1,${expected}`);
    });
  });

  test("a plain-text secret is used as the HMAC key as is", async () => {
    const { t, spaceId } = setup();
    t.setSetting("webhook_secret", "s3cret");
    const id = t.tx(() => t.webhooks.enqueue(spaceId, `${base}/plain`, payload));
    await t.runUntilIdle();
    const r = received[0]!;
    const ts = r.headers["webhook-timestamp"];
    const expected = crypto.createHmac("sha256", "s3cret").update(`${id}.${ts}.${r.body}`).digest("base64");
    expect(r.headers["webhook-signature"]).toBe(`v1,${expected}`);
  });

  test("an outbox row written in a transaction that rolls back is never sent", async () => {
    const { t, spaceId } = setup();
    expect(() =>
      t.tx(() => {
        t.webhooks.enqueue(spaceId, `${base}/hook`, payload);
        throw new Error("state change failed");
      }),
    ).toThrow();
    await t.runUntilIdle();
    expect(received).toHaveLength(0);
    expect(t.webhookDeliveries()).toEqual([]);
  });

  test("listing filters by space", async () => {
    const { t, spaceId } = setup();
    const other = t.createSpace({ plan: "PRO", credits: 0 }).space.id;
    t.tx(() => t.webhooks.enqueue(spaceId, `${base}/a`, payload));
    t.tx(() => t.webhooks.enqueue(other, `${base}/b`, payload));
    expect(t.webhookDeliveries(other).map((d) => d.url)).toEqual([`${base}/b`]);
    expect(t.webhookDeliveries()).toHaveLength(2);
  });
});
