/**
 * A stand-in for the hosted service on 127.0.0.1, for what the real service does rarely but the CLI
 * must survive: hanging polls, long rate-limit windows, hostile download links, slow downloads,
 * 5xx. An asset id says how its status answers, by its first word:
 *   done-… completed (http media link)   pend-… pending   fail-… failed   gone-… 404
 *   hang-… never answers                 rate-… 429 with a reset 30 s ahead
 *   file-… completed with a file:///etc/passwd link   slow-… completed with a link that never finishes
 * `asset start` returns the ids listed (comma-separated) in its prompt.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Stub {
  root: string;
  /** "METHOD /path" of every request, in order. */
  requests: string[];
  /** Resolves when a slow download has sent its first bytes. */
  slowStarted(): Promise<void>;
  close(): Promise<void>;
}

const PNG = Buffer.from("89504e470d0a1a0a" + "00".repeat(64), "hex");

function asset(id: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    asset_id: id,
    status,
    type: "image",
    cost: 1,
    generation_params: { model: "stub-img", prompt: "p" },
    created_at: new Date(0).toISOString(),
    ...extra,
  };
}

export async function startStub(): Promise<Stub> {
  const requests: string[] = [];
  let root = "";
  let onSlow: (() => void) | undefined;
  const slow = new Promise<void>((r) => (onSlow = r));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    const p = url.pathname.replace(/^\/api\/public\/v1/, "");
    requests.push(`${req.method} ${p}`);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

    if (req.method === "POST" && p === "/asset/start") {
      let raw = "";
      req.on("data", (c: Buffer) => (raw += c.toString()));
      req.on("end", () => {
        const ids = String((JSON.parse(raw) as { prompt?: string }).prompt ?? "").split(",");
        json(200, { asset_ids: ids, status: "pending", count: ids.length, cost_per_generation: 1, total_cost: ids.length });
      });
      return;
    }
    const status = /^\/asset\/status\/(.+)$/.exec(p);
    if (req.method === "GET" && status) {
      const id = decodeURIComponent(status[1]!);
      const kind = id.split("-")[0];
      if (kind === "hang") return; // never answers
      if (kind === "rate") {
        json(
          429,
          { error: "Rate limit exceeded. Maximum 100 requests per minute.", details: [{ code: "rate_limit_exceeded", message: "slow down" }] },
          {
            "X-RateLimit-Limit": "100",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": String(Math.floor(Date.now() / 1000) + 30),
          },
        );
        return;
      }
      if (kind === "gone") return json(404, { error: "Asset not found", details: [{ code: "asset_not_found", message: "Asset not found" }] });
      if (kind === "pend") return json(200, asset(id, "processing"));
      if (kind === "fail") return json(200, asset(id, "failed", { error: { code: "PROVIDER_DOWN", message: "provider down" } }));
      if (kind === "file") return json(200, asset(id, "completed", { url: "file:///etc/passwd" }));
      if (kind === "slow") return json(200, asset(id, "completed", { url: `${root}/slow/${id}.png` }));
      return json(200, asset(id, "completed", { url: `${root}/media/${id}.png` }));
    }
    if (req.method === "GET" && p.startsWith("/media/")) return res.writeHead(200, { "content-type": "image/png" }).end(PNG);
    if (req.method === "GET" && p.startsWith("/slow/")) {
      res.writeHead(200, { "content-type": "image/png", "content-length": String(10_000_000) });
      res.write(PNG);
      onSlow?.();
      return; // the rest never comes
    }
    if (req.method === "GET" && p === "/asset/models") {
      return json(200, {
        count: 2,
        // Summary items as the hosted service sends them (the hosted client checks their shape).
        models: [
          {
            name: "stubModelA",
            label: "Stub A",
            type: "image",
            provider: "stub",
            tags: [],
            base_cost: 1,
            has_audio: false,
            required_plans: [],
            capabilities: { min_images: 0, max_images: 1 },
          },
          {
            name: "stubModelB",
            label: "Stub B",
            type: "image",
            provider: "stub",
            tags: [],
            base_cost: 1,
            has_audio: false,
            required_plans: [],
            capabilities: { min_images: 0, max_images: 1 },
          },
        ],
      });
    }
    if (req.method === "GET" && p === "/folder/list") return json(503, { error: "Service unavailable", details: [{ code: "internal_error", message: "down" }] });
    json(404, { error: "Not found", details: [{ code: "not_found", message: "Not found" }] });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    root,
    requests,
    slowStarted: () => slow,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
