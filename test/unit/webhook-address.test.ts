/**
 * A default `serve` applies its address policy to webhooks as to fetches: a webhook_url on a
 * loopback or private address (any spelling, or a name resolving there) is refused with the
 * endpoint's 400 on webhook_url, nothing debited; in process (and with --allow-private-urls) it is
 * taken, as `mediagen listen` and `--webhook-listen` need.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

let t: TestInstance;
beforeAll(() => {
  t = openTestInstance({ worker: "none" });
});
afterAll(() => t.close());

const served = (op: "assetStart" | "avatarCreate" | "generationStart", body: Record<string, unknown>, allowPrivateNetwork: boolean) =>
  t.service.dispatch(`Bearer ${t.key}`, op, body, { urls: t.fileUrls(), allowLocalFiles: false, allowPrivateNetwork });

const HOOKS = [
  "http://127.0.0.1:9/hook",
  "http://2130706433:9/hook",
  "http://[::1]:9/hook",
  "http://localhost:9/hook",
  "http://10.1.2.3/hook",
  "http://169.254.169.254/latest",
];

describe("webhook_url under a default serve", () => {
  it("asset start refuses private webhook addresses (400 invalid_value on webhook_url), nothing debited", async () => {
    const space = t.spaceForKey(t.key)!.id;
    const before = t.ledger.balance(space);
    for (const webhook_url of HOOKS) {
      const res = await served("assetStart", { type: "image", model: "imgA-4", prompt: "x", webhook_url }, false);
      expect(res.status, webhook_url).toBe(400);
      expect(res.body, webhook_url).toMatchObject({ details: [{ code: "invalid_value", field: "webhook_url" }] });
    }
    expect(t.ledger.balance(space)).toBe(before);
  });

  it("avatar create and generation start refuse them with their own codes", async () => {
    const a = await served("avatarCreate", { prompt: "a baker", webhook_url: HOOKS[0] }, false);
    expect(a.status).toBe(400);
    expect(a.body).toMatchObject({ code: "INVALID_VALUE" });
    const g = await served("generationStart", { prompt: "a talk", duration: 10, webhook_url: HOOKS[1] }, false);
    expect(g.status).toBe(400);
    expect(g.body).toMatchObject({ code: "INVALID_VALUE", details: [{ field: "webhook_url" }] });
  });

  it("takes them with --allow-private-urls (and in process), and takes public addresses always", async () => {
    expect((await served("assetStart", { type: "image", model: "imgA-4", prompt: "x", webhook_url: HOOKS[0] }, true)).status).toBe(201);
    expect((await served("assetStart", { type: "image", model: "imgA-4", prompt: "x", webhook_url: "https://93.184.216.34/hook" }, false)).status).toBe(201);
  });
});
