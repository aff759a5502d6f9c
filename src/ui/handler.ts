/**
 * The pages' HTTP handler, mounted at `/` by `mediagen ui` and `mediagen serve`: answers its own
 * paths (`/`, `/local`, `/videos/<id>`, `/ui/…`) and returns false for any other, which the server
 * then answers as before. Every answer passes the guard first (guard.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { readHistory, JOB_KINDS, type JobKind } from "../cli/journal.js";
import { listVideos, readVideo } from "../features/video/emulator/public/record.js";
import { videoView } from "../features/video/emulator/show.js";
import type { LocalInstance } from "../features/local.js";
import type { UrlBuilder } from "../local/types.js";
import { openServedFile, sendServedFile } from "../server/media.js";
import { galleryItems, itemKey } from "./gallery-data.js";
import { galleryPage } from "./gallery-page.js";
import { type PageGuard, SECURITY_HEADERS } from "./guard.js";
import { escapeHtml, type Html } from "./html.js";
import { jobState, latestExport } from "./jobs-state.js";
import { localData, resendDelivery } from "./local-data.js";
import { localPage } from "./local-page.js";
import { APP_CSS, APP_JS } from "./static.js";
import { videoPage } from "./video-page.js";

export interface UiOptions {
  instance: LocalInstance;
  /** MEDIAGEN_HOME: where the history is. */
  home: string;
  /** Signed media URLs of the instance (known once the server listens). */
  urls: () => UrlBuilder;
  guard: PageGuard;
}

export type PageHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** A path segment as text; undefined for a broken %-escape. */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const PAGE_PATHS = /^\/(?:$|local$|videos\/[^/]+$|ui\/)/;
const FORM_MAX = 4096;

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, "content-length": String(Buffer.byteLength(body)), ...extra });
  res.end(body);
}

const sendPage = (res: ServerResponse, page: Html, status = 200) => send(res, status, "text/html; charset=utf-8", page.text);

function sendError(res: ServerResponse, status: number, message: string): void {
  send(res, status, "text/html; charset=utf-8", `<!doctype html><meta charset="utf-8"><title>${status}</title><p>${escapeHtml(message)}</p>`);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > FORM_MAX) return undefined;
    chunks.push(c as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * A file the history says `download` saved, served as the server serves its media (one descriptor,
 * no symbolic link followed, Range support: video players seek with it).
 */
async function sendFile(req: IncomingMessage, res: ServerResponse, file: string): Promise<void> {
  const opened = await openServedFile(file);
  if (opened === "link") return sendError(res, 403, "The saved file is a symbolic link: not served.");
  if (opened === "missing") return sendError(res, 404, "The saved file is gone.");
  await sendServedFile(req, res, opened, file, SECURITY_HEADERS);
}

/** The state of the listed local jobs (`key=local:<kind>:<id>`, at most 100), as the gallery's poller reads it. */
function jobsJson(instance: UiOptions["instance"], url: URL): string {
  const jobs = url.searchParams
    .getAll("key")
    .slice(0, 100)
    .flatMap((key) => {
      const [target, kind, ...rest] = key.split(":");
      const id = rest.join(":");
      if (target !== "local" || !JOB_KINDS.includes(kind as JobKind)) return [];
      const s = jobState(instance.db, kind as JobKind, id);
      return s ? [{ key, status: s.status, running: s.running, step: s.step, progress: s.progress }] : [];
    });
  return JSON.stringify({ jobs });
}

export function createUiHandler(o: UiOptions): PageHandler {
  const { instance, guard } = o;
  // Same-origin paths, whichever name the browser used for this server (127.0.0.1, localhost, --public-url).
  const media = (rel: string) => {
    const u = new URL(o.urls().media(rel), "http://localhost");
    return u.pathname + u.search;
  };
  const savedUrl = (key: string) => `/ui/saved?key=${encodeURIComponent(key)}`;

  const gallery = (url: URL) => {
    const items = galleryItems({ history: readHistory(o.home), db: instance.db, mediaUrl: media, savedUrl });
    const q = (k: string) => url.searchParams.get(k) ?? undefined;
    return galleryPage(items, { kind: q("kind"), target: q("target"), status: q("status"), text: q("q"), space: q("space") });
  };

  const video = (id: string) => {
    const row = readVideo(instance.db, id);
    if (!row) return undefined;
    const exported = latestExport(instance.db, id);
    return videoPage({
      view: videoView(row),
      playUrl: exported ? media(exported.video_path) : null,
      posterUrl: row.thumbnail_path ? media(row.thumbnail_path) : exported?.thumbnail_path ? media(exported.thumbnail_path) : null,
      exportId: exported?.id ?? null,
    });
  };

  const resend = async (req: IncomingMessage, res: ServerResponse, id: string, how: "resend" | "new") => {
    const form = await readForm(req);
    const verdict = guard.checkPost(req, form?.get("token") ?? undefined);
    if (!verdict.ok) return sendError(res, verdict.status, verdict.message);
    const fresh = resendDelivery(instance, id, how);
    if (!fresh) return sendError(res, 404, `No webhook delivery ${id}.`);
    res.writeHead(303, { ...SECURITY_HEADERS, location: `/local?resent=${encodeURIComponent(fresh)}#webhooks`, "content-length": "0" });
    res.end();
  };

  return async function handlePages(req, res) {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      return false;
    }
    const path = url.pathname;
    if (!PAGE_PATHS.test(path)) return false;
    const method = req.method === "HEAD" ? "GET" : req.method;
    const resendMatch = /^\/ui\/webhooks\/([^/]+)\/(resend|redeliver)$/.exec(path);
    // Pages are read with GET; any other method is not theirs (serve answers it as before: JSON 404).
    if (!resendMatch && method !== "GET") return false;
    const verdict = guard.admit(req);
    if (!verdict.ok) sendError(res, verdict.status, verdict.message);
    else if (method === "GET" && guard.secretOf(req) === "query") {
      // The printed URL's secret becomes this run's cookie, and leaves the address bar (and history).
      url.searchParams.delete("token");
      res.writeHead(303, { ...SECURITY_HEADERS, location: url.pathname + url.search, "set-cookie": guard.cookie(), "content-length": "0" });
      res.end();
    } else if (resendMatch) await resendRoute(req, res, method, resendMatch[1] ?? "", resendMatch[2] === "redeliver" ? "new" : "resend");
    else await answer(req, res, url);
    return true;
  };

  async function resendRoute(req: IncomingMessage, res: ServerResponse, method: string | undefined, segment: string, how: "resend" | "new"): Promise<void> {
    if (method !== "POST") return send(res, 405, "text/plain; charset=utf-8", "POST only", { allow: "POST" });
    const id = decoded(segment);
    if (id === undefined) return sendError(res, 404, "No such webhook delivery.");
    await resend(req, res, id, how);
  }

  async function answer(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    if (path === "/") return sendPage(res, gallery(url));
    if (path === "/local") {
      const resent = url.searchParams.get("resent");
      return sendPage(res, localPage(localData(instance), listVideos(instance.db).reverse(), guard.token, resent ? `Resent as delivery ${resent}.` : undefined));
    }
    if (path.startsWith("/videos/")) {
      const id = decoded(path.slice("/videos/".length));
      const page = id === undefined ? undefined : video(id);
      return page ? sendPage(res, page) : sendError(res, 404, "No such video.");
    }
    if (path === "/ui/app.css") return send(res, 200, "text/css; charset=utf-8", APP_CSS);
    if (path === "/ui/app.js") return send(res, 200, "text/javascript; charset=utf-8", APP_JS);
    if (path === "/ui/api/jobs") return send(res, 200, "application/json; charset=utf-8", jobsJson(instance, url));
    if (path === "/ui/saved") {
      const key = url.searchParams.get("key") ?? "";
      const entry = readHistory(o.home).find((e) => itemKey(e) === key);
      if (!entry?.saved) return sendError(res, 404, "No saved file for this job.");
      return sendFile(req, res, entry.saved);
    }
    sendError(res, 404, "No such page.");
  }
}
