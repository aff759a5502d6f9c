/**
 * Issue 27: who may read and act on the dashboard pages at `/` of `serve` (and `mediagen ui`):
 * loopback only unless told otherwise, never with an API key, not through a rebound host name, and
 * a resend only from a same-origin page with this process's token. The API under /api/public/v1 is
 * unchanged beside them; `serve --no-ui` leaves `/` to the JSON 404.
 */
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome } from "../cli/helpers.js";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { createUiHandler } from "../../src/ui/handler.js";
import { PageGuard } from "../../src/ui/guard.js";
import { spawnCli } from "./spawn.js";

/** A non-loopback IPv4 address of this machine, to reach a server from "another" address. */
const otherAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

/** Every guard's cookie: the pages need this run's secret, which a browser holds once it opened the printed URL. */
const guards: PageGuard[] = [];
const cookies = () => guards.map((g) => `${g.cookieName}=${g.secret}`).join("; ");
const fetch = (url: string, init: RequestInit = {}) =>
  globalThis.fetch(url, { ...init, headers: { cookie: cookies(), ...(init.headers as Record<string, string> | undefined) } });

/** The printed URL's first visit: 303 to the page without the secret, which becomes a cookie of this run. */
async function cookieFrom(url: string): Promise<string> {
  const first = await globalThis.fetch(url, { redirect: "manual" });
  expect(first.status).toBe(303);
  expect(first.headers.get("location")).toBe("/");
  const set = first.headers.get("set-cookie")!;
  expect(set).toMatch(/HttpOnly/);
  expect(set).toMatch(/SameSite=Strict/);
  return set.split(";")[0]!;
}

async function serveWithPages(instance: LocalInstance, home: string, opts: { host?: string; allowRemote?: boolean } = {}) {
  const guard = new PageGuard({ allowRemote: opts.allowRemote ?? false });
  guards.push(guard);
  const server = await startServer({
    instance,
    host: opts.host ?? "127.0.0.1",
    port: 0,
    pages: (urls) => createUiHandler({ instance, home, urls: () => urls, guard }),
  });
  return { server, guard };
}

describe("the dashboard's guard", () => {
  let home: string;
  let instance: LocalInstance;
  let key: string;
  let running: RunningServer;
  let guard: PageGuard;
  let delivery: string;

  beforeAll(async () => {
    home = newHome();
    instance = openLocalInstance({ home, worker: "none" });
    key = instance.defaultKey();
    const space = instance.listSpaces()[0]!;
    delivery = instance.webhooks.enqueue(space.id, "http://127.0.0.1:9/hook", { task: "asset_generation", asset_id: "a".repeat(24), status: "completed" } as never);
    ({ server: running, guard } = await serveWithPages(instance, home));
  });

  afterAll(async () => {
    await running?.close(100);
    await instance?.close();
  });

  it("serves the pages to this machine with a strict CSP, beside the unchanged API", async () => {
    const page = await fetch(`${running.origin}/local`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const body = await page.text();
    expect(body).toContain(delivery);
    expect(body).not.toContain(key); // keys are masked
    expect(body).not.toMatch(/<script>|<style>| style="| on[a-z]+="/); // nothing inline for the CSP to allow
    const api = await fetch(`${running.baseUrl}/folder/list`);
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: "Missing API key" });
    expect((await fetch(`${running.origin}/no-such-page`)).status).toBe(404);
  });

  it("an API key grants nothing: a request carrying one is refused", async () => {
    for (const path of ["/", "/local", "/ui/api/jobs"]) {
      const r = await fetch(`${running.origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
      expect(r.status, path).toBe(403);
      expect(await r.text()).not.toContain(delivery);
    }
  });

  it("answers only with this run's secret: none or a wrong one is refused; the printed URL's first visit trades it for a cookie", async () => {
    const tries: Record<string, string>[] = [{}, { cookie: `${guard.cookieName}=wrong` }, { cookie: `mediagen_ui_other=${guard.secret}` }];
    for (const headers of tries) {
      const r = await globalThis.fetch(`${running.origin}/local`, { headers });
      expect(r.status).toBe(403);
      const text = await r.text();
      expect(text).toMatch(/URL printed when it started/);
      expect(text).not.toContain(delivery);
      expect(text).not.toContain(guard.token);
    }
    expect((await globalThis.fetch(`${running.origin}/local?token=wrong`)).status).toBe(403);
    expect((await globalThis.fetch(`${running.origin}/ui/app.js`)).status).toBe(403);
    const cookie = await cookieFrom(guard.urlFor(running.origin));
    const page = await globalThis.fetch(`${running.origin}/local`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(guard.token);
  });

  it("refuses a host name that is not this machine's (DNS rebinding)", async () => {
    const { request } = await import("node:http");
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const u = new URL(running.origin);
        request({ host: u.hostname, port: u.port, path: "/local", headers: { host, cookie: cookies() } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on("error", reject)
          .end();
      });
    expect(await status("evil.example:80")).toBe(403);
    expect(await status(`localhost:${new URL(running.origin).port}`)).toBe(200);
  });

  it.skipIf(!otherAddress)("refuses clients on other addresses unless told otherwise", async () => {
    const closed = await serveWithPages(instance, home, { host: "0.0.0.0" });
    const opened = await serveWithPages(instance, home, { host: "0.0.0.0", allowRemote: true });
    try {
      const port = (s: RunningServer) => new URL(s.origin).port;
      const refused = await fetch(`http://${otherAddress}:${port(closed.server)}/local`);
      expect(refused.status).toBe(403);
      expect(await refused.text()).not.toContain(delivery);
      expect((await fetch(`http://127.0.0.1:${port(closed.server)}/local`)).status).toBe(200);
      expect((await fetch(`http://${otherAddress}:${port(opened.server)}/local`)).status).toBe(200);
      // With a key, from afar: still nothing.
      expect((await fetch(`http://${otherAddress}:${port(opened.server)}/local`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(403);
    } finally {
      await closed.server.close(100);
      await opened.server.close(100);
    }
  });

  it("resends (same delivery) and sends as new (new delivery) only for a same-origin POST carrying this process's token", async () => {
    const url = `${running.origin}/ui/webhooks/${delivery}/resend`;
    const count = () => instance.webhookDeliveries().length;
    const before = count();
    const post = (headers: Record<string, string>, token: string) =>
      fetch(url, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: `token=${encodeURIComponent(token)}`,
      });
    expect((await post({}, guard.token)).status).toBe(403); // no Origin
    expect((await post({ origin: "http://evil.example" }, guard.token)).status).toBe(403);
    expect((await post({ origin: "null" }, guard.token)).status).toBe(403);
    expect((await post({ origin: running.origin }, "stale")).status).toBe(403);
    expect((await fetch(url)).status).toBe(405);
    expect(count()).toBe(before);
    // Resend: the same delivery again (its webhook-id kept, as `local webhooks resend`), no new row.
    const ok = await post({ origin: running.origin }, guard.token);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe(`/local?resent=${delivery}#webhooks`);
    expect(count()).toBe(before);
    expect(await post({ origin: running.origin }, guard.token).then((r) => r.status)).toBe(303);
    // Send as new: a new delivery of the same payload, with its own webhook-id.
    const asNew = await fetch(`${running.origin}/ui/webhooks/${delivery}/redeliver`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: running.origin },
      body: `token=${encodeURIComponent(guard.token)}`,
    });
    expect(asNew.status).toBe(303);
    expect(count()).toBe(before + 1);
    const copy = instance.webhookDeliveries().at(-1)!;
    expect(copy.id).not.toBe(delivery);
    expect(copy.webhook_id).toBe(copy.id);
    expect(copy.payload).toEqual(instance.webhookDeliveries().find((d) => d.id === delivery)!.payload);
    expect((await fetch(`${running.origin}/ui/webhooks/${delivery}/redeliver`, { method: "POST", headers: { origin: running.origin } })).status).toBe(403);
    const missing = await fetch(`${running.origin}/ui/webhooks/whd_nope/resend`, {
      method: "POST",
      headers: { origin: running.origin, "content-type": "application/x-www-form-urlencoded" },
      body: `token=${guard.token}`,
    });
    expect(missing.status).toBe(404);
  });
});

describe("mediagen serve and the pages", () => {
  it("serves the pages at / by default, and not with --no-ui", async () => {
    const home = newHome();
    const withUi = spawnCli(home, ["serve", "--port", "0", "--json"]);
    const without = spawnCli(home, ["serve", "--port", "0", "--json", "--no-ui"]);
    try {
      const first = async (c: typeof withUi) => JSON.parse(await c.next((l) => l.startsWith('{"base_url"'))) as { base_url: string; dashboard_url?: string };
      const origin = async (c: typeof withUi) => (await first(c)).base_url.replace(/\/api\/public\/v1$/, "");
      const started = await first(withUi);
      const base = started.base_url.replace(/\/api\/public\/v1$/, "");
      // The dashboard's address carries this run's secret; without it the pages answer 403.
      expect(started.dashboard_url).toMatch(new RegExp(`^${base.replace(/[.]/g, "\\.")}/\\?token=[A-Za-z0-9_-]{32}$`));
      expect((await globalThis.fetch(`${base}/`)).status).toBe(403);
      const a = await globalThis.fetch(`${base}/`, { headers: { cookie: await cookieFrom(started.dashboard_url!) } });
      expect(a.status).toBe(200);
      expect(await a.text()).toContain("<title>Gallery · mediagen</title>");
      const b = await fetch(`${await origin(without)}/`);
      expect(b.status).toBe(404);
      expect(await b.json()).toMatchObject({ details: [{ code: "not_found" }] });
    } finally {
      await withUi.stop();
      await without.stop();
    }
  }, 60_000);
});
