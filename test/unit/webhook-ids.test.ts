/**
 * Webhook ids (issue 36, item 5): every delivery carries a `webhook-id`, signed or not; a retry, a
 * `webhook_duplicate` fault and a resend keep it, so a receiver can dedupe; "send again as a new
 * delivery" (redeliver) is a new id; `listen`'s receiver marks a repeated id, signed or not.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ManualClock } from "../../src/local/clock.js";
import type { WebhookPayload } from "../../src/contract/webhook.js";
import { startReceiver, type WebhookEvent } from "../../src/cli/webhook-receiver.js";
import { verifyStandardWebhook } from "../../src/cli/webhook-verify.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let url: string;
let received: Received[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const open: TestInstance[] = [];
afterEach(async () => {
  received = [];
  for (const t of open.splice(0)) await t.close();
});

function setup() {
  const clock = new ManualClock(Date.UTC(2026, 2, 3, 4, 5, 6));
  const t = openTestInstance({ worker: "none", clock });
  open.push(t);
  return { t, clock, spaceId: t.spaceForKey(t.key)!.id };
}

const payload: WebhookPayload = { task: "asset_generation", status: "completed", asset_id: "a1", result: { asset_url: "https://x/a.png" } } as never;
const ids = () => received.map((r) => r.headers["webhook-id"]);

describe("webhook-id on every delivery", () => {
  test("an unsigned delivery carries its webhook-id (no signature headers)", async () => {
    // (A retry sends the same delivery row, so the same id: test/unit/local-webhooks.test.ts checks it signed.)
    const { t, spaceId } = setup();
    const id = t.webhooks.enqueue(spaceId, url, payload);
    await t.runUntilIdle();
    expect(ids()).toEqual([id]);
    expect(received[0]!.headers["webhook-signature"]).toBeUndefined();
    expect(t.webhookDelivery(id)).toMatchObject({ webhook_id: id, status: "delivered" });
  });

  test("a webhook_duplicate fault: two deliveries of one message, the same webhook-id, each signed validly with it", async () => {
    const { t, spaceId } = setup();
    t.setSetting("webhook_secret", "whsec_dGVzdHNlY3JldA==");
    t.faults.add({ op: "asset_generation", action: "webhook_duplicate", times: 1 });
    const id = t.webhooks.enqueue(spaceId, url, payload);
    await t.runUntilIdle();
    expect(ids()).toEqual([id, id]);
    const rows = t.webhookDeliveries();
    expect(rows).toHaveLength(2);
    expect(rows.map((d) => d.webhook_id)).toEqual([id, id]);
    expect(rows[1]!.id).not.toBe(id);
    for (const r of received) {
      const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
      expect(verifyStandardWebhook("whsec_dGVzdHNlY3JldA==", headers, r.body, t.clock.now()).signature).toBe("valid");
    }
  });

  test("resend keeps the delivery and its webhook-id; redeliver is a new delivery with a new one", async () => {
    const { t, spaceId } = setup();
    const id = t.webhooks.enqueue(spaceId, url, payload);
    await t.runUntilIdle();
    expect(t.resendWebhook(id)).toBe(id);
    await t.runUntilIdle();
    const fresh = t.redeliverWebhook(id);
    await t.runUntilIdle();
    expect(fresh).not.toBe(id);
    expect(ids()).toEqual([id, id, fresh]);
    expect(received.map((r) => r.body)).toEqual([received[0]!.body, received[0]!.body, received[0]!.body]);
    expect(t.webhookDeliveries().map((d) => [d.id, d.webhook_id])).toEqual([
      [id, id],
      [fresh, fresh],
    ]);
    expect(() => t.redeliverWebhook("whd_nope")).toThrow(/No webhook delivery whd_nope/);
  });
});

describe("listen's receiver marks repeats by webhook-id", () => {
  test("unsigned deliveries with the same id: the second is a duplicate; another id is not", async () => {
    const events: WebhookEvent[] = [];
    const receiver = await startReceiver({ onEvent: (e) => events.push(e) });
    try {
      const post = (id: string) =>
        fetch(receiver.url, { method: "POST", headers: { "content-type": "application/json", "webhook-id": id }, body: JSON.stringify(payload) });
      await post("whd_1");
      await post("whd_1");
      await post("whd_2");
      expect(events.map((e) => [e.webhook_id, e.signature])).toEqual([
        ["whd_1", "unchecked"],
        ["whd_1", "duplicate"],
        ["whd_2", "unchecked"],
      ]);
    } finally {
      await receiver.close();
    }
  });
});
