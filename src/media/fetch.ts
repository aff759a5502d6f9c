/**
 * resolveMedia: reference/media URLs → local files. http(s) is fetched once (timeout + size cap) into
 * the cache under a hash of the URL; file:// URLs and plain paths are checked and returned as is.
 */
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { removeQuietly, sha256, tempPathFor } from "./atomic.js";
import { hostAddresses, isPublicAddress, lookupWithin, RefusedAddressError, type AddressPolicy } from "./address-policy.js";
import { MediaFetchError } from "./errors.js";

export interface ResolveMediaOptions {
  cacheDir: string;
  /** Default 200 MiB. */
  maxBytes?: number;
  /** Whole request, headers and body. Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Whether http(s) URLs may reach loopback, private and link-local addresses. True for the machine's
   * owner (in process); false on a remote caller's behalf (`mediagen serve` unless
   * `--allow-private-urls`): then every address a URL resolves to, on every redirect, must be public.
   */
  allowPrivateNetwork: boolean;
  /**
   * The cache holds transient copies (references read once by a render): keep it within its size and
   * age after each download (`pruneCache`). Off for caches whose files records keep naming.
   */
  prune?: boolean;
  /** The addresses a public-only fetch may reach (default: public unicast ones, `isPublicAddress`). */
  addressPolicy?: AddressPolicy;
}

export const DEFAULT_MAX_BYTES = 200 * 1024 * 1024;
/** The fetch cache is kept under this size and age (oldest out), files used in the last 10 min excepted. */
export const CACHE_MAX_BYTES = 1024 * 1024 * 1024;
export const CACHE_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
const CACHE_KEEP_RECENT_MS = 10 * 60 * 1000;
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The URL without credentials or query, safe to put in messages and logs. */
export function displayUrl(u: URL): string {
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/**
 * The deadline of one request: `signal` aborts after `timeoutMs` (`timedOut` then says so) or as soon
 * as the caller's signal does. `end()` once the request is over.
 */
export interface RequestDeadline {
  readonly signal: AbortSignal;
  readonly timedOut: boolean;
  abort(): void;
  end(): void;
}

export function requestDeadline(timeoutMs: number, caller: AbortSignal | undefined): RequestDeadline {
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort();
  }, timeoutMs);
  const onAbort = (): void => ctrl.abort();
  caller?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: ctrl.signal,
    get timedOut() {
      return timedOut;
    },
    abort: () => ctrl.abort(),
    end: () => {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onAbort);
    },
  };
}

/** What a failed request's message may say of its error: its code only (library messages may quote the full URL). */
export function fetchErrorCode(e: unknown): string {
  return (e as { code?: string }).code ?? (e instanceof Error ? e.name : "error");
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
  return (await resolveMediaFile(urlOrPath, o)).path;
}

/**
 * resolveMedia, also saying whether this call downloaded the file: a caller that then refuses the
 * request removes it (`removeQuietly`), so refused requests cannot fill the cache.
 */
export async function resolveMediaFile(urlOrPath: string, o: ResolveMediaOptions): Promise<{ path: string; downloaded: boolean }> {
  if (typeof urlOrPath !== "string" || urlOrPath.trim() === "") {
    throw new MediaFetchError("empty media URL or path", "unsupported");
  }
  const s = urlOrPath.trim();
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s)?.[1]?.toLowerCase();
  // One letter before ":" is a Windows drive, not a scheme.
  if (!scheme || scheme.length === 1) return { path: existingFile(s, s), downloaded: false };
  if (scheme === "file") {
    let p: string;
    try {
      p = fileURLToPath(s);
    } catch {
      throw new MediaFetchError(`invalid file URL: ${s}`, "unsupported");
    }
    return { path: existingFile(p, s), downloaded: false };
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
  // The policy holds for every use of a URL, a cached copy included: what this machine's owner
  // fetched into the cache is not thereby open to a remote caller.
  if (!o.allowPrivateNetwork) await checkReachable(url, o.addressPolicy ?? isPublicAddress);
  const dest = path.join(o.cacheDir, cacheName(url));
  if (fs.existsSync(dest)) {
    // A use keeps the file young: pruning goes by last use, not by first download.
    const now = new Date();
    try {
      fs.utimesSync(dest, now, now);
    } catch {
      // pruned between the check and now: fetch it again below
    }
    if (fs.existsSync(dest)) return { path: dest, downloaded: false };
  }
  fs.mkdirSync(o.cacheDir, { recursive: true });
  await download(url, dest, o);
  if (o.prune) pruneCache(o.cacheDir, { keep: dest });
  return { path: dest, downloaded: true };
}

/**
 * Refuses a URL whose host is, or resolves to, an address the policy does not allow: the same check
 * the fetch makes on its socket, made before a cached copy is handed out. Every refusal reads the
 * same as a failed fetch (`could not fetch <url>`), so nothing about the address is learnt from it.
 */
async function checkReachable(url: URL, policy: AddressPolicy): Promise<void> {
  const addresses = (await hostAddresses(url)) ?? [];
  if (addresses.length === 0 || addresses.some((a) => !policy(a))) {
    throw new MediaFetchError(`could not fetch ${displayUrl(url)}`, "unreachable");
  }
}

/**
 * Keeps a fetch cache within `maxBytes` and `maxAgeMs`: files unused for longer than the age go, then
 * the least recently used until the total fits. Files used in the last few minutes stay (a job may be
 * about to read them), as does `keep`.
 */
export function pruneCache(dir: string, o: { maxBytes?: number; maxAgeMs?: number; keep?: string; now?: number } = {}): void {
  const maxBytes = o.maxBytes ?? CACHE_MAX_BYTES;
  const maxAgeMs = o.maxAgeMs ?? CACHE_MAX_AGE_MS;
  const now = o.now ?? Date.now();
  let entries: { file: string; size: number; used: number }[];
  try {
    entries = fs.readdirSync(dir).flatMap((name) => {
      const file = path.join(dir, name);
      try {
        const st = fs.statSync(file);
        return st.isFile() ? [{ file, size: st.size, used: st.mtimeMs }] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return;
  }
  entries.sort((a, b) => a.used - b.used);
  let total = entries.reduce((n, e) => n + e.size, 0);
  for (const e of entries) {
    if (e.file === o.keep || now - e.used < CACHE_KEEP_RECENT_MS) continue;
    if (now - e.used <= maxAgeMs && total <= maxBytes) continue;
    removeQuietly(e.file);
    total -= e.size;
  }
}

const MAX_REDIRECTS = 5;

/** One GET through node's http(s) with the policy's lookup; resolves with the response, unread. */
function get(url: URL, headers: Record<string, string>, policy: AddressPolicy | undefined, signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === "https:" ? https : http;
    const req = mod.get(url, { headers, signal, ...(policy ? { lookup: lookupWithin(policy) as never } : {}) }, resolve);
    req.on("error", reject);
  });
}

export interface OpenUrlOptions {
  /** See ResolveMediaOptions.allowPrivateNetwork. */
  allowPrivateNetwork: boolean;
  addressPolicy?: AddressPolicy;
  signal: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * A GET of an http(s) URL on someone's behalf, redirects followed (at most 5) under the address policy:
 * on a remote caller's behalf every hop must reach an allowed address and URL credentials are dropped;
 * on this machine's own behalf credentials go as Basic auth (never to another origin). Resolves with
 * the final response, unread, and the URL it came from. Refusals throw RefusedAddressError.
 */
export async function openUrl(url: URL, o: OpenUrlOptions): Promise<{ res: http.IncomingMessage; url: URL }> {
  const policy = o.allowPrivateNetwork ? undefined : (o.addressPolicy ?? isPublicAddress);
  let target = new URL(url.href);
  const headers: Record<string, string> = { "user-agent": "mediagen-local", ...o.headers };
  if (target.username || target.password) {
    if (!policy) {
      const user = decodeURIComponent(target.username);
      const pass = decodeURIComponent(target.password);
      headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    }
    target.username = "";
    target.password = "";
  }
  for (let hop = 0; ; hop++) {
    // An address written as an IP (in any spelling the URL parser accepts) is never looked up.
    const host = target.hostname.replace(/^\[|\]$/g, "");
    if (policy && net.isIP(host) && !policy(host)) throw new RefusedAddressError(`${host} is not an address this fetch may reach`);
    const res = await get(target, headers, policy, o.signal);
    const location = res.headers.location;
    if (!(res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location)) return { res, url: target };
    res.resume();
    if (hop >= MAX_REDIRECTS) throw new MediaFetchError(`too many redirects fetching ${displayUrl(url)}`, "http_error", res.statusCode);
    const next = new URL(location, target);
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new MediaFetchError(`${displayUrl(url)} redirects to an unsupported URL scheme`, "unsupported");
    }
    // Credentials never follow a redirect to another origin.
    if (next.origin !== target.origin) delete headers.authorization;
    next.username = "";
    next.password = "";
    target = next;
  }
}

async function download(url: URL, dest: string, o: ResolveMediaOptions): Promise<void> {
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const publicOnly = !o.allowPrivateNetwork;
  const shown = displayUrl(url);
  const deadline = requestDeadline(timeoutMs, o.signal);
  const tmp = tempPathFor(dest);
  let out: fs.WriteStream | undefined;
  let res: http.IncomingMessage | undefined;
  try {
    ({ res } = await openUrl(url, {
      allowPrivateNetwork: o.allowPrivateNetwork,
      ...(o.addressPolicy ? { addressPolicy: o.addressPolicy } : {}),
      signal: deadline.signal,
    }));
    const status = res.statusCode ?? 0;
    if (status === 404 || status === 410) {
      throw new MediaFetchError(`not found (HTTP ${status}): ${shown}`, "not_found", status);
    }
    if (status < 200 || status >= 300) throw new MediaFetchError(`HTTP ${status} fetching ${shown}`, "http_error", status);
    const declared = Number(res.headers["content-length"] ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      throw new MediaFetchError(`${shown} is ${declared} bytes, over the ${maxBytes}-byte limit`, "too_large");
    }
    const file = fs.createWriteStream(tmp);
    out = file;
    // The file's errors are kept and thrown here, never left unlistened: a write still in flight when
    // the fetch is cut short (a timeout, a cancel) reports ERR_STREAM_DESTROYED after the destroy, and
    // an unlistened 'error' would end the whole process (serve, a worker).
    let writeError: Error | undefined;
    file.on("error", (e) => {
      writeError ??= e;
    });
    let total = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        throw new MediaFetchError(`${shown} is over the ${maxBytes}-byte limit`, "too_large");
      }
      if (!file.write(chunk)) {
        // Drained, or closed by an error: either way the wait is over (the error is thrown below).
        await new Promise<void>((r) => {
          const done = () => {
            file.off("drain", done);
            file.off("close", done);
            r();
          };
          file.on("drain", done);
          file.on("close", done);
        });
      }
      if (writeError) throw writeError;
    }
    await new Promise<void>((resolve, reject) => out!.end((e?: Error | null) => (e ? reject(e) : resolve())));
    out = undefined;
    fs.renameSync(tmp, dest);
  } catch (e) {
    if (out) out.destroy();
    res?.destroy();
    removeQuietly(tmp);
    deadline.abort();
    const cancelled = !deadline.timedOut && o.signal?.aborted;
    if (cancelled) throw new MediaFetchError(`cancelled fetching ${shown}`, "timeout");
    if (publicOnly && !(e instanceof MediaFetchError && (e.reason === "too_large" || e.reason === "unsupported"))) {
      // For a remote caller every refused or failed fetch reads the same: what an address or port
      // answered (refused, closed, timed out, not HTTP) must not be learnable from the message.
      throw new MediaFetchError(`could not fetch ${shown}`, "unreachable");
    }
    if (e instanceof MediaFetchError) throw e;
    if (deadline.timedOut) throw new MediaFetchError(`timed out after ${timeoutMs} ms fetching ${shown}`, "timeout");
    throw new MediaFetchError(`could not fetch ${shown}: ${fetchErrorCode(e)}`, "http_error");
  } finally {
    deadline.end();
  }
}
