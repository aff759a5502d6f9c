/**
 * A small app that uses the media-generation service the way most do: start an image, poll its
 * status, fetch the file, and take the webhook that says it is done. Standard library only (Node 20+).
 * The tests beside it (app.test.mjs) run it against `mediagen/testing`'s emulator.
 */
import http from "node:http";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds a 429 (or 503) asks us to wait: Retry-After first, else the rate window's reset. */
function waitMs(res) {
  const after = res.headers.get("retry-after");
  if (after !== null && /^\d+$/.test(after)) return Number(after) * 1000;
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  return Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - Date.now()) : 1000;
}

export function createClient({ baseUrl, apiKey, maxRateWaits = 3 }) {
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };

  async function call(method, path, body) {
    for (let waited = 0; ; waited++) {
      const res = await fetch(`${baseUrl}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
      // A 429 is refused before any work: safe to send again, even a POST, after the wait it asks for.
      if (res.status === 429 && waited < maxRateWaits) {
        await sleep(waitMs(res));
        continue;
      }
      const data = await res.json();
      if (!res.ok) throw Object.assign(new Error(`${method} ${path}: HTTP ${res.status} ${data.details?.[0]?.code ?? ""}`.trim()), { status: res.status, body: data });
      return data;
    }
  }

  return {
    /** Starts one image; returns its asset id. A 5xx is not retried: the start may have been debited. */
    async startImage(prompt, { webhookUrl } = {}) {
      const out = await call("POST", "/asset/start", { type: "image", model: "imgA-4-fast", prompt, ...(webhookUrl ? { webhook_url: webhookUrl } : {}) });
      return out.asset_ids[0];
    },
    /** Polls until the asset is ready or failed. */
    async waitForAsset(id, { intervalMs = 250, timeoutMs = 60_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const a = await call("GET", `/asset/status/${id}`);
        if (a.status !== "generating" && a.status !== "pending") return a;
        if (Date.now() > deadline) throw new Error(`asset ${id} still ${a.status} after ${timeoutMs} ms`);
        await sleep(intervalMs);
      }
    },
    /** The file's bytes. */
    async download(url) {
      const res = await fetch(url);
      if (!res.ok) throw Object.assign(new Error(`download: HTTP ${res.status}`), { status: res.status });
      return Buffer.from(await res.arrayBuffer());
    },
  };
}

/**
 * The app's webhook endpoint: handles each event once, whatever the sender repeats (a retry, a
 * duplicate: the same `webhook-id`), and answers 200 fast.
 */
export async function startWebhookInbox(onEvent) {
  const seen = new Set();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const id = req.headers["webhook-id"];
      res.writeHead(200).end();
      if (id && seen.has(id)) return;
      if (id) seen.add(id);
      onEvent(JSON.parse(raw));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
