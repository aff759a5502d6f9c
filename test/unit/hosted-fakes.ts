/** Real HTTP servers on 127.0.0.1 port 0 that misbehave on cue, for the hosted client's tests. */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the fake answers for the n-th request (0-based): a response, or `drop` to destroy the socket. */
export type Script = (n: number, seen: Seen) => { status: number; body?: unknown; headers?: Record<string, string>; raw?: string } | "drop" | "hang";

export interface FakeServer {
  url: string;
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

export async function fakeServer(script: Script, port = 0): Promise<FakeServer> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(s);
      const answer = script(seen.length - 1, s);
      if (answer === "drop") return req.socket.destroy();
      if (answer === "hang") return;
      const payload = answer.raw ?? JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const p = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${p}/api/public/v1`,
    port: p,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** An HTTP CONNECT proxy that tunnels every host to one local port and counts the tunnels. */
export async function connectProxy(targetPort: number): Promise<{ url: string; connects: string[]; close(): Promise<void> }> {
  const connects: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => {
    res.writeHead(405);
    res.end("this proxy only tunnels");
  });
  server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    connects.push(req.url!);
    sockets.add(client);
    const upstream = net.connect(targetPort, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Minimal bodies that satisfy each operation's response schema (the hosted engine checks them). */
export const BODIES = {
  folder: { id: "f1", name: "Reports", type: "assets", parent_folder_id: null, created_at: "2025-01-01T12:00:00Z" },
  folders: { folders: [] },
  asset: { asset_id: "a1", status: "generating", type: "image", cost: 1, created_at: "2025-01-01T12:00:00Z" },
  voice: { id: "v1", name: "Emma", language: "en", gender: "female", tags: [], source: "config" },
  lookDetail: {
    id: "l1",
    name: "Office",
    place: "office",
    accessories: [],
    action: "talking",
    emotion: "calm",
    selfie: false,
    format: "vertical",
    thumbnail: "https://cdn.example.com/l1.png",
    preview: null,
    status: "ready",
    model_available: ["standard"],
    avatar_id: "av1",
    avatar_name: "Maya",
    look_name: "Office",
    gender: "female",
    age_range: "adult",
    ethnicity: "x",
    hair_color: "brown",
    error_message: null,
  },
} as const;
