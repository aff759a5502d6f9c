/**
 * resolveMedia: reference/media URLs → local files. http(s) is fetched once (timeout + size cap) into
 * the cache under a hash of the URL; file:// URLs and plain paths are checked and returned as is.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { removeQuietly, sha256, tempPathFor } from "./atomic.js";
import { MediaFetchError } from "./errors.js";

export interface ResolveMediaOptions {
  cacheDir: string;
  /** Default 200 MiB. */
  maxBytes?: number;
  /** Whole request, headers and body. Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export const DEFAULT_MAX_BYTES = 200 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The URL without credentials or query, safe to put in messages and logs. */
export function displayUrl(u: URL): string {
  return `${u.protocol}//${u.host}${u.pathname}`;
}

function existingFile(p: string, shown: string): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    throw new MediaFetchError(`file not found: ${shown}`, "not_found");
  }
  if (!st.isFile()) throw new MediaFetchError(`not a regular file: ${shown}`, "unsupported");
  return path.resolve(p);
}

/** Keeps the extension (ffmpeg and the spec's checks go by it), limited to a sane shape. */
function cacheName(u: URL): string {
  const ext = path.posix.extname(decodeURIComponent(u.pathname)).toLowerCase();
  return `url-${sha256(u.href)}${/^\.[a-z0-9]{1,8}$/.test(ext) ? ext : ""}`;
}

export async function resolveMedia(urlOrPath: string, o: ResolveMediaOptions): Promise<string> {
  if (typeof urlOrPath !== "string" || urlOrPath.trim() === "") {
    throw new MediaFetchError("empty media URL or path", "unsupported");
  }
  const s = urlOrPath.trim();
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s)?.[1]?.toLowerCase();
  // One letter before ":" is a Windows drive, not a scheme.
  if (!scheme || scheme.length === 1) return existingFile(s, s);
  if (scheme === "file") {
    let p: string;
    try {
      p = fileURLToPath(s);
    } catch {
      throw new MediaFetchError(`invalid file URL: ${s}`, "unsupported");
    }
    return existingFile(p, s);
  }
  if (scheme !== "http" && scheme !== "https") {
    throw new MediaFetchError(`unsupported URL scheme "${scheme}:" (use http(s)://, file:// or a local path)`, "unsupported");
  }
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new MediaFetchError(`invalid URL: ${s}`, "unsupported");
  }
  const dest = path.join(o.cacheDir, cacheName(url));
  if (fs.existsSync(dest)) return dest;
  fs.mkdirSync(o.cacheDir, { recursive: true });
  await download(url, dest, o);
  return dest;
}

async function download(url: URL, dest: string, o: ResolveMediaOptions): Promise<void> {
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const shown = displayUrl(url);
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort();
  }, timeoutMs);
  const onAbort = (): void => ctrl.abort();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const tmp = tempPathFor(dest);
  let out: fs.WriteStream | undefined;
  try {
    // fetch refuses URLs with user:password@; send them as Basic auth like curl does.
    const headers: Record<string, string> = {};
    const target = new URL(url.href);
    if (target.username || target.password) {
      const user = decodeURIComponent(target.username);
      const pass = decodeURIComponent(target.password);
      headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
      target.username = "";
      target.password = "";
    }
    const res = await fetch(target, { signal: ctrl.signal, redirect: "follow", headers });
    if (res.status === 404 || res.status === 410) {
      throw new MediaFetchError(`not found (HTTP ${res.status}): ${shown}`, "not_found", res.status);
    }
    if (!res.ok) throw new MediaFetchError(`HTTP ${res.status} fetching ${shown}`, "http_error", res.status);
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      throw new MediaFetchError(`${shown} is ${declared} bytes, over the ${maxBytes}-byte limit`, "too_large");
    }
    if (!res.body) throw new MediaFetchError(`empty response from ${shown}`, "http_error", res.status);
    out = fs.createWriteStream(tmp);
    let total = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        throw new MediaFetchError(`${shown} is over the ${maxBytes}-byte limit`, "too_large");
      }
      if (!out.write(chunk)) await new Promise<void>((r) => out!.once("drain", r));
    }
    await new Promise<void>((resolve, reject) => out!.end((e?: Error | null) => (e ? reject(e) : resolve())));
    out = undefined;
    fs.renameSync(tmp, dest);
  } catch (e) {
    if (out) out.destroy();
    removeQuietly(tmp);
    if (e instanceof MediaFetchError) {
      ctrl.abort();
      throw e;
    }
    if (timedOut) throw new MediaFetchError(`timed out after ${timeoutMs} ms fetching ${shown}`, "timeout");
    if (o.signal?.aborted) throw new MediaFetchError(`cancelled fetching ${shown}`, "timeout");
    // Only an error code goes into the message: library messages may quote the full URL.
    const code = e instanceof Error ? ((e.cause as { code?: string } | undefined)?.code ?? e.name) : "error";
    throw new MediaFetchError(`could not fetch ${shown}: ${code}`, "http_error");
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
  }
}
