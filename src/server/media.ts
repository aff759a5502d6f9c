import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { constants as fsConstants, promises as fsp } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";

/** Exports (and every media URL) stay valid 7 days, as the spec says of export downloads. */
export const DEFAULT_MEDIA_TTL_SECONDS = 7 * 24 * 3600;
export const MEDIA_PREFIX = "/media/";

const CONTENT_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif",
  ".mp4": "video/mp4",
  ".m4v": "video/mp4",
  ".mov": "video/quicktime",
  ".webm": "video/webm",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".m4a": "audio/mp4",
  ".ogg": "audio/ogg",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".srt": "application/x-subrip",
  ".vtt": "text/vtt",
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

/** Where the signing secret lives: the instance's settings, so it survives restarts of `serve`. */
export interface SecretStore {
  /** Stores `value` unless the key already has one; returns the stored value either way. */
  ensureSetting(key: string, value: string): string;
}

/**
 * The media signing secret, created on first use. Insert-if-absent in one statement: two servers
 * starting at once end with the same secret, and neither invalidates the other's links.
 */
export function loadMediaSecret(store: SecretStore): string {
  return store.ensureSetting("media_secret", randomBytes(32).toString("hex"));
}

/** Normalises a media path: relative, `/`-separated, no `..`. `undefined` when it escapes. */
export function cleanRelPath(rel: string): string | undefined {
  const parts = rel
    .replace(/\\/g, "/")
    .split("/")
    .filter((p) => p !== "" && p !== ".");
  if (parts.length === 0 || parts.some((p) => p === ".." || p.includes("\0"))) return undefined;
  return parts.join("/");
}

export class MediaSigner {
  /**
   * Recent signatures: every status poll of a finished asset signs its URL again, with the same
   * expiry for a second (an HMAC was 3% of a served status read in a profile).
   */
  private readonly recent = new Map<string, string>();
  private static readonly RECENT_MAX = 1000;

  constructor(
    private readonly secret: string,
    private readonly nowMs: () => number,
  ) {}

  signature(rel: string, exp: number): string {
    const text = `${rel}\n${exp}`;
    let sig = this.recent.get(text);
    if (sig === undefined) {
      sig = createHmac("sha256", this.secret).update(text).digest("hex");
      if (this.recent.size >= MediaSigner.RECENT_MAX) this.recent.clear();
      this.recent.set(text, sig);
    }
    return sig;
  }

  /**
   * Path and query of a signed URL for `rel` (relative to the media dir). A TTL of 0 or less signs a
   * link that has already expired (an export's link read after its 7 days).
   */
  signedPath(rel: string, ttlSeconds = DEFAULT_MEDIA_TTL_SECONDS): string {
    const clean = cleanRelPath(rel);
    if (!clean) throw new TypeError(`media path escapes the media dir: ${rel}`);
    const ttl = Math.floor(ttlSeconds);
    const exp = Math.floor(this.nowMs() / 1000) + (ttl >= 1 ? ttl : Math.min(-1, ttl));
    const encoded = clean.split("/").map(encodeURIComponent).join("/");
    return `${MEDIA_PREFIX}${encoded}?exp=${exp}&sig=${this.signature(clean, exp)}`;
  }

  /** Checks a signature; `expired` and `bad` are told apart for the error message only. */
  verify(rel: string, expRaw: string | null, sig: string | null): "ok" | "expired" | "bad" {
    if (!expRaw || !sig || !/^\d+$/.test(expRaw) || !/^[0-9a-f]{64}$/.test(sig)) return "bad";
    const exp = Number(expRaw);
    const want = Buffer.from(this.signature(rel, exp), "hex");
    if (!timingSafeEqual(want, Buffer.from(sig, "hex"))) return "bad";
    return exp * 1000 < this.nowMs() ? "expired" : "ok";
  }
}

type Reply = (status: number, code: string, message: string, extra?: Record<string, string>) => void;

/** Parses a single `bytes=` range; multipart ranges are answered with the whole file. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

/** A file opened to be served: checked and read through its one descriptor. */
export interface OpenedFile {
  handle: fsp.FileHandle;
  size: number;
  mtime: Date;
}

/**
 * Opens `file` once to serve it, not following a symbolic link (O_NOFOLLOW): what is checked (a
 * regular file) is what is read, so a file swapped for a link between a check and the read is
 * refused, not followed. `link` for a symbolic link, `missing` for anything else that is not a file.
 */
export async function openServedFile(file: string): Promise<OpenedFile | "link" | "missing"> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ELOOP" ? "link" : "missing";
  }
  try {
    const st = await handle.stat();
    if (st.isFile()) return { handle, size: st.size, mtime: st.mtime };
  } catch {
    // Gone between the open and the stat: as missing.
  }
  await handle.close();
  return "missing";
}

/**
 * Answers GET or HEAD with an opened file (its content type from `name`), with Range support:
 * a single satisfiable range is a 206, an unsatisfiable one a 416. Closes the file.
 */
export async function sendServedFile(req: IncomingMessage, res: ServerResponse, opened: OpenedFile, name: string, baseHeaders: Record<string, string>): Promise<void> {
  const { handle, size } = opened;
  const headers: Record<string, string | number> = {
    ...baseHeaders,
    "content-type": contentTypeOf(name),
    "accept-ranges": "bytes",
    "last-modified": opened.mtime.toUTCString(),
  };
  const range = parseRange(req.headers.range, size);
  if (range === "unsatisfiable") {
    await handle.close();
    res.writeHead(416, { ...headers, "content-range": `bytes */${size}`, "content-length": 0 });
    return void res.end();
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  const length = size === 0 ? 0 : end - start + 1;
  if (range) headers["content-range"] = `bytes ${start}-${end}/${size}`;
  headers["content-length"] = length;
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === "HEAD" || length === 0) {
    await handle.close();
    return void res.end();
  }
  await new Promise<void>((resolve) => {
    // The stream owns the descriptor from here and closes it.
    const stream = handle.createReadStream({ start, end });
    stream.on("error", () => {
      res.destroy();
      resolve();
    });
    res.on("close", () => {
      stream.destroy();
      resolve();
    });
    stream.pipe(res);
  });
}

/** Serves one signed media file (GET or HEAD), with Range support. */
export async function serveMedia(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  mediaDir: string,
  signer: MediaSigner,
  reply: Reply,
  baseHeaders: Record<string, string>,
): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return reply(405, "method_not_allowed", `Method ${req.method} not allowed for media`, { allow: "GET, HEAD" });
  }
  let rel: string | undefined;
  try {
    rel = cleanRelPath(decodeURIComponent(url.pathname.slice(MEDIA_PREFIX.length)));
  } catch {
    rel = undefined;
  }
  if (!rel) return reply(404, "not_found", "Media not found");
  const verdict = signer.verify(rel, url.searchParams.get("exp"), url.searchParams.get("sig"));
  if (verdict !== "ok") {
    return reply(403, "forbidden", verdict === "expired" ? "This media link has expired" : "Invalid media signature");
  }
  const root = path.resolve(mediaDir);
  const file = path.resolve(root, rel);
  if (!file.startsWith(root + path.sep)) return reply(404, "not_found", "Media not found");
  const opened = await openServedFile(file);
  if (typeof opened === "string") return reply(404, "not_found", "Media not found");
  await sendServedFile(req, res, opened, file, { ...baseHeaders, "cache-control": "private, max-age=3600" });
}
