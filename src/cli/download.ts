/**
 * Saving a result file: written to a temp file beside the target, then moved into place, so a
 * reader never sees half a file and an existing file is never replaced without --force.
 */
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import crypto from "node:crypto";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { CliError, EXIT, type DownloadOptions } from "./types.js";
import type { Trace } from "./debug.js";
import type { Env } from "./io.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export interface SaveOptions extends DownloadOptions {
  /**
   * Read file: URLs and plain paths. Only the local engine hands those out (its media are files);
   * from a hosted service they would copy any file of this machine, so they are refused.
   */
  allowLocal?: boolean;
  /** Stops the download (Ctrl-C of a surrounding wait). Without it, `onInterrupt` is listened to. */
  signal?: AbortSignal;
  /** The command that starts the download again, printed when it is interrupted. */
  resume?: string;
  /** How Ctrl-C is heard when no signal is given (the frame passes its runtime's; none: not interruptible). */
  onInterrupt?: (handler: () => void) => () => void;
  /** Proxy variables (HTTP(S)_PROXY, NO_PROXY) for http(s) links; default: this process's environment. */
  env?: Env;
  /** The most one file may have, in bytes (default MAX_DOWNLOAD_BYTES; tests pass less). */
  maxBytes?: number;
  /**
   * The hosted service's base URL the link came from. When it is on a public address, the link may
   * not lead to a loopback or private one (src/cli/result-address.ts); unset (the local target), any.
   */
  serviceBaseUrl?: string;
}

/**
 * The most one downloaded file may have: a 10-minute video at the largest export size is a few
 * hundred megabytes, so a larger answer is a broken or hostile server, not a result.
 */
export const MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;
/** Room left on the disk after a download, for everything else on this machine. */
const FREE_SPACE_MARGIN = 64 * 1024 * 1024;

/** Bytes a download into `dir` may still take: the per-file limit, or the free space less a margin. */
function roomIn(dir: string, maxBytes: number): { bytes: number; why: string } {
  try {
    const st = fs.statfsSync(dir);
    const free = Number(st.bavail) * Number(st.bsize) - FREE_SPACE_MARGIN;
    if (free < maxBytes) return { bytes: Math.max(0, free), why: `the free space of ${dir}` };
  } catch {
    // statfs unsupported here: the per-file limit still holds
  }
  return { bytes: maxBytes, why: `the ${formatBytes(maxBytes)} limit of one download` };
}

function formatBytes(n: number): string {
  return n >= 1024 ** 3 ? `${Math.round((n / 1024 ** 3) * 10) / 10} GiB` : `${Math.round((n / 1024 ** 2) * 10) / 10} MiB`;
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function refuse(target: string): CliError {
  return new CliError(`${target} already exists; pass --force to overwrite`, EXIT.usage, "file_exists", "--download");
}

/**
 * Creates the download directory and checks that it takes files, before anything is paid for: a
 * bad --download is a usage error up front, not a failure after the wait.
 */
export function prepareDir(dir: string, flag = "--download"): string {
  const abs = path.resolve(dir);
  try {
    fs.mkdirSync(abs, { recursive: true });
    if (!fs.statSync(abs).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    fs.accessSync(abs, fs.constants.W_OK);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === "ENOTDIR" || err.code === "EEXIST"
        ? "not a directory"
        : err.code === "EACCES" || err.code === "EPERM"
          ? "permission denied"
          : (err.code ?? err.message);
    throw new CliError(`${flag}: cannot save into ${abs}: ${why}`, EXIT.usage, "invalid_value", flag);
  }
  return abs;
}

/** Moves `tmp` to `target`; without force the move fails if `target` appeared meanwhile. */
function place(tmp: string, target: string, force: boolean): void {
  if (force) {
    fs.renameSync(tmp, target);
    return;
  }
  try {
    // link() fails with EEXIST instead of replacing: an atomic no-clobber move.
    fs.linkSync(tmp, target);
    fs.rmSync(tmp, { force: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      fs.rmSync(tmp, { force: true });
      throw refuse(target);
    }
    if (exists(target)) {
      fs.rmSync(tmp, { force: true });
      throw refuse(target);
    }
    fs.renameSync(tmp, target);
  }
}

export async function download(url: string, dir: string, name: string, opts: SaveOptions = {}, trace?: Trace): Promise<string> {
  if (!name || name.includes("/") || name.includes("\\") || name === "." || name === "..") {
    throw new CliError(`not a file name: "${name}"`, EXIT.usage, "invalid_value");
  }
  const remote = /^https?:\/\//i.test(url);
  if (!remote && !opts.allowLocal) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
    throw new CliError(
      `refusing to download ${scheme ? `a ${scheme}: URL` : "a local path"} from a hosted service; only http(s) links are saved`,
      EXIT.error,
      "unsafe_url",
    );
  }
  const targetDir = prepareDir(dir);
  const target = path.join(targetDir, name);
  if (!opts.force && exists(target)) throw refuse(target);
  const tmp = path.join(targetDir, `.${name}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.part`);

  const ac = new AbortController();
  const stop = () => ac.abort(new Error("interrupted"));
  let off: () => void;
  if (opts.signal) {
    if (opts.signal.aborted) stop();
    opts.signal.addEventListener("abort", stop, { once: true });
    off = () => opts.signal!.removeEventListener("abort", stop);
  } else {
    off = opts.onInterrupt ? opts.onInterrupt(stop) : () => {};
  }

  const t0 = performance.now();
  const out = fs.createWriteStream(tmp, { flags: "wx" });
  // Listened to at once: the file opens while the request is still being made, and an error with no
  // listener (a full disk, a directory made read-only meanwhile) would end the process uncaught. The
  // pipeline that writes to it reports the same error where the download is.
  out.on("error", () => undefined);
  try {
    if (remote) {
      const publicOnly = opts.serviceBaseUrl !== undefined && !(await import("./result-address.js").then((m) => m.isPrivateService(opts.serviceBaseUrl!)));
      await fetchTo(url, out, ac.signal, roomIn(targetDir, opts.maxBytes ?? MAX_DOWNLOAD_BYTES), {
        publicOnly,
        ...(trace ? { trace } : {}),
        ...(opts.env ? { env: opts.env } : {}),
      });
    } else {
      const source = /^file:/i.test(url) ? fileURLToPath(url) : path.resolve(url);
      await pipeline(fs.createReadStream(source), out, { signal: ac.signal });
      trace?.(`copy ${source} → ${target} (${Math.round(performance.now() - t0)} ms)`);
    }
    if (ac.signal.aborted) throw ac.signal.reason;
    place(tmp, target, opts.force === true);
  } catch (e) {
    // The file may still be opening or flushing: remove it only once its stream has closed, or the
    // late open would leave a partial file behind.
    if (!out.closed) {
      out.destroy();
      await once(out, "close").catch(() => undefined);
    }
    fs.rmSync(tmp, { force: true });
    if (ac.signal.aborted) {
      throw new CliError(`Stopped downloading ${name}; nothing was saved.${opts.resume ? ` Resume with: ${opts.resume}` : ""}`, EXIT.interrupted, "interrupted");
    }
    if (e instanceof CliError) throw e;
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") throw new CliError(`download failed: source not found (${url})`, EXIT.notFound, "not_found");
    throw new CliError(`download failed: ${err.message}`, EXIT.error, "download_failed");
  } finally {
    off();
  }
  return target;
}

/** undici's EnvHttpProxyAgent reads process.env for what is not given: "" means none is set. */
function proxyOptions(env: Env | undefined) {
  if (!env) return {};
  return {
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? "",
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? "",
    noProxy: env.no_proxy ?? env.NO_PROXY ?? "",
  };
}

type UndiciRequest = typeof import("undici").request;

/** One GET of a public-only hop; the socket's lookup refusing a private address is the download's refusal. */
async function requestChecked(request: UndiciRequest, url: string, dispatcher: import("undici").Dispatcher, signal: AbortSignal) {
  try {
    return await request(url, { method: "GET", dispatcher, signal });
  } catch (e) {
    if ((e as { code?: string }).code === "EPRIVATEADDRESS" || (e as { cause?: { code?: string } }).cause?.code === "EPRIVATEADDRESS") throw privateResult(new URL(url));
    throw e;
  }
}

function privateResult(u: URL): CliError {
  return new CliError(
    `refusing to download ${u.protocol}//${u.host}${u.pathname}: it is on a loopback or private address, and the service that sent the link is public`,
    EXIT.error,
    "unsafe_url",
  );
}

/** Passes bytes through until `limit`, then fails (the download is removed by the caller). */
function capped(limit: { bytes: number; why: string }, declared: number | undefined): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      total += chunk.byteLength;
      if (declared !== undefined && total > declared) {
        return done(new CliError(`download failed: the server sent more than the ${declared} bytes it declared`, EXIT.error, "download_failed"));
      }
      if (total > limit.bytes) return done(new CliError(`download failed: the file is over ${limit.why}`, EXIT.error, "download_too_large"));
      done(null, chunk);
    },
  });
}

async function fetchTo(
  url: string,
  out: fs.WriteStream,
  signal: AbortSignal,
  limit: { bytes: number; why: string },
  o: { publicOnly: boolean; trace?: Trace; env?: Env },
): Promise<void> {
  const undici = await import("undici");
  const { request, Agent, EnvHttpProxyAgent, interceptors } = undici;
  const host = new URL(url).hostname;
  const timeouts = { connectTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 300_000 };
  const t0 = performance.now();
  if (!o.publicOnly) {
    const base = LOOPBACK.has(host) ? new Agent(timeouts) : new EnvHttpProxyAgent({ ...timeouts, ...proxyOptions(o.env) });
    try {
      const res = await request(url, { method: "GET", dispatcher: base.compose(interceptors.redirect({ maxRedirections: 5 })), signal });
      o.trace?.(`GET ${url} → ${res.statusCode} (${Math.round(performance.now() - t0)} ms)`);
      await saveBody(res, out, signal, limit);
    } finally {
      // destroy, not close: an interrupted transfer must not be waited for.
      await (signal.aborted ? base.destroy() : base.close());
    }
    return;
  }
  // A link from a public service goes to public addresses only. Redirects are followed here, one
  // hop at a time, so that every hop is checked: a literal address before anything is sent; a name
  // by the socket's own lookup when the hop goes direct, or resolved here first when the user's proxy
  // carries it (the proxy resolves it again; a name this machine cannot resolve is the proxy's to find).
  let target = url;
  for (let hop = 0; ; hop++) {
    const { dispatcher, close } = await publicHop(undici, new URL(target), timeouts, o.env ?? process.env);
    try {
      const res = await requestChecked(request, target, dispatcher, signal);
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof res.headers.location === "string") {
        await res.body.dump();
        if (hop >= 5) throw new CliError("download failed: too many redirects", EXIT.error, "download_failed");
        target = new URL(res.headers.location, target).toString();
        continue;
      }
      o.trace?.(`GET ${url} → ${res.statusCode} (${Math.round(performance.now() - t0)} ms)`);
      await saveBody(res, out, signal, limit);
      return;
    } finally {
      await close(signal.aborted);
    }
  }
}

/** The dispatcher for one hop of a link from a public service, after the checks its address allows. */
async function publicHop(
  undici: typeof import("undici"),
  u: URL,
  timeouts: { connectTimeout: number; headersTimeout: number; bodyTimeout: number },
  env: Env,
): Promise<{ dispatcher: import("undici").Dispatcher; close: (abort: boolean) => Promise<void> }> {
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new CliError("download failed: redirected to a link that is not http(s)", EXIT.error, "unsafe_url");
  const { isPrivateAddress, publicOnlyLookup, resolvesPrivate } = await import("./result-address.js");
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) ? isPrivateAddress(host) : host === "localhost" || host.endsWith(".localhost")) throw privateResult(u);
  const { proxyFor } = await import("../hosted/proxy.js");
  let proxy: URL | undefined;
  try {
    proxy = proxyFor(u, env as NodeJS.ProcessEnv);
  } catch (e) {
    throw new CliError(`download failed: ${(e as Error).message}`, EXIT.usage, "invalid_proxy");
  }
  let agent: import("undici").Dispatcher;
  if (proxy) {
    if (!net.isIP(host) && (await resolvesPrivate(host))) throw privateResult(u);
    agent = new undici.ProxyAgent({ ...timeouts, uri: proxy.href });
  } else {
    agent = new undici.Agent({ ...timeouts, connect: { lookup: publicOnlyLookup } });
  }
  return { dispatcher: agent, close: (abort) => (abort ? agent.destroy() : agent.close()) };
}

/** A 2xx answer's body into `out` within `limit`; anything else is the download's error. */
async function saveBody(res: import("undici").Dispatcher.ResponseData, out: fs.WriteStream, signal: AbortSignal, limit: { bytes: number; why: string }): Promise<void> {
  if (res.statusCode < 200 || res.statusCode >= 300) {
    await res.body.dump();
    throw new CliError(`download failed: HTTP ${res.statusCode}`, res.statusCode === 404 ? EXIT.notFound : EXIT.error, "download_failed");
  }
  const length = res.headers["content-length"];
  const declared = typeof length === "string" && /^\d+$/.test(length) ? Number(length) : undefined;
  if (declared !== undefined && declared > limit.bytes) {
    res.body.destroy();
    throw new CliError(`download failed: the file is ${declared} bytes, over ${limit.why}; nothing was saved`, EXIT.error, "download_too_large");
  }
  await pipeline(res.body, capped(limit, declared), out, { signal });
}
