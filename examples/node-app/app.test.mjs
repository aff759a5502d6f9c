/**
 * The example app's tests against the emulator (`mediagen/testing`), under node:test:
 * `node --test examples/node-app/app.test.mjs`. One emulator for the file, back to its first state before each test.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { startEmulator } from "mediagen/testing";
import { createClient, startWebhookInbox } from "./app.mjs";

let mg;
let app;

before(async () => {
  // A roomy rate limit: polling a slow machine must not meet the 100-per-minute window (a test of its own could).
  mg = await startEmulator({ credits: 100, plan: "PRO", rateLimit: 1000 });
  app = createClient({ baseUrl: mg.baseUrl, apiKey: mg.apiKey });
});
after(() => mg.stop());
beforeEach(() => mg.reset());

test("an image: started once, polled to ready, its file fetched", async () => {
  const id = await app.startImage("a red fox");
  const asset = await app.waitForAsset(id);
  assert.equal(asset.status, "completed");
  const png = await app.download(asset.url);
  assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from("PNG")]);
  const starts = await mg.requests({ op: "assetStart" });
  assert.equal(starts.length, 1);
  assert.equal(starts[0].body.prompt, "a red fox");
});

test("a 429 with Retry-After: the app waits as asked and starts again, once", async () => {
  await mg.faults.add({ op: "assetStart", action: "error", status: 429, retry_after: 1, times: 1 });
  const t0 = Date.now();
  await app.startImage("a fox");
  assert.ok(Date.now() - t0 >= 900, "waited the Retry-After");
  const starts = await mg.requests({ op: "assetStart" });
  assert.deepEqual(
    starts.map((r) => r.status),
    [429, 201],
  );
});

test("a 503 on start is reported, not retried: exactly one POST", async () => {
  await mg.faults.add({ op: "assetStart", action: "error", status: 503, times: 1 });
  await assert.rejects(app.startImage("a fox"), { status: 503 });
  assert.equal((await mg.requests({ op: "assetStart", method: "POST" })).length, 1);
});

test("a job that fails is seen as failed", async () => {
  await mg.faults.add({ op: "assetStart", action: "job_fail", times: 1 });
  const asset = await app.waitForAsset(await app.startImage("a fox"));
  assert.equal(asset.status, "failed");
});

test("the webhook: a duplicated delivery is handled once (same webhook-id)", async () => {
  const events = [];
  const inbox = await startWebhookInbox((e) => events.push(e));
  try {
    await mg.faults.add({ op: "asset_generation", action: "webhook_duplicate", times: 1 });
    const id = await app.startImage("a fox", { webhookUrl: inbox.url });
    await app.waitForAsset(id);
    // Both deliveries have been sent once the emulator records them delivered.
    const deliveries = async () => (await mg.admin("GET", "webhooks")).deliveries.filter((d) => d.status === "delivered");
    for (let i = 0; i < 100 && (await deliveries()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const sent = await deliveries();
    assert.equal(sent.length, 2);
    assert.equal(sent[0].webhook_id, sent[1].webhook_id);
    assert.equal(events.length, 1);
    assert.equal(events[0].asset_id, id);
  } finally {
    await inbox.close();
  }
});

test("the emulator's own receiver: what the service sent, repeats marked", async () => {
  await mg.faults.add({ op: "asset_generation", action: "webhook_duplicate", times: 1 });
  await app.startImage("a fox", { webhookUrl: mg.webhooks.url });
  const got = await mg.webhooks.waitFor(2);
  assert.deepEqual(
    got.map((d) => d.repeat),
    [false, true],
  );
  assert.equal(got[0].id, got[1].id);
});

test("an expired file link: the clock moved past the link's life", async () => {
  const asset = await app.waitForAsset(await app.startImage("a fox"));
  await mg.clock.advance("8d");
  await assert.rejects(app.download(asset.url), (e) => e.status >= 400);
});
