/**
 * What the scenario suites serve on 127.0.0.1: the files of a fixture dir under `/media/<name>`, and a
 * webhook receiver at `/hook/…` recording every delivery. One per test file, on port 0.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

export interface FixtureServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Webhook deliveries received, in order. */
  hooks: { path: string; body: Record<string, unknown>; headers: Record<string, string | string[] | undefined> }[];
  close(): Promise<void>;
}

export async function startFixtureServer(dir: string): Promise<FixtureServer> {
  const hooks: FixtureServer["hooks"] = [];
  const server = http.createServer((req, res) => {
    if (req.method === "POST" && req.url?.startsWith("/hook/")) {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString("utf8")));
      req.on("end", () => {
        hooks.push({ path: req.url!, body: JSON.parse(body) as Record<string, unknown>, headers: req.headers });
        res.writeHead(200).end("ok");
      });
      return;
    }
    const name = decodeURIComponent((req.url ?? "").replace(/^\/media\//, "").split("?")[0]!);
    if (req.method === "GET" && req.url?.startsWith("/media/") && fs.existsSync(path.join(dir, name))) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      fs.createReadStream(path.join(dir, name)).pipe(res);
      return;
    }
    res.writeHead(404).end("missing");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hooks,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
