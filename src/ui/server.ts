/**
 * `mediagen ui`: the pages on their own loopback server, with the instance's signed media links
 * (the same signing secret as `serve`, so a link from one works on the other while both run).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LocalInstance } from "../features/local.js";
import type { UrlBuilder } from "../local/types.js";
import { loadMediaSecret, MEDIA_PREFIX, MediaSigner, serveMedia } from "../server/media.js";
import { PageGuard, SECURITY_HEADERS } from "./guard.js";
import { createUiHandler } from "./handler.js";

export interface UiServerOptions {
  instance: LocalInstance;
  home: string;
  port: number;
  host?: string;
}

export interface RunningUi {
  readonly origin: string;
  /** The dashboard's address with this run's secret: what to print and open. */
  readonly url: string;
  close(): Promise<void>;
}

function plain(res: http.ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8", "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

export async function startUiServer(o: UiServerOptions): Promise<RunningUi> {
  const signer = new MediaSigner(loadMediaSecret(o.instance), () => o.instance.clock.now());
  let origin = "";
  const urls: UrlBuilder = { media: (rel, ttl) => origin + signer.signedPath(rel, ttl) };
  const guard = new PageGuard({ allowRemote: false });
  const pages = createUiHandler({ instance: o.instance, home: o.home, urls: () => urls, guard });

  const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    void (async () => {
      const path = (req.url ?? "/").split("?")[0]!;
      if (path.startsWith(MEDIA_PREFIX)) {
        const verdict = guard.admit(req);
        if (!verdict.ok) return plain(res, verdict.status, verdict.message);
        const url = new URL(req.url ?? "/", "http://localhost");
        return serveMedia(
          req,
          res,
          url,
          o.instance.mediaDir,
          signer,
          (status, _code, message, extra) => {
            if (res.headersSent) return;
            res.writeHead(status, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8", ...(extra ?? {}) });
            res.end(message);
          },
          {},
        );
      }
      if (!(await pages(req, res))) plain(res, 404, "Not found");
    })().catch(() => plain(res, 500, "The page failed to render"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  origin = `http://${addr.address.includes(":") ? `[${addr.address}]` : addr.address}:${addr.port}`;
  return {
    origin,
    url: guard.urlFor(origin),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
