/**
 * Saving a result file: written to a temp file beside the target, then moved into place, so a
 * reader never sees half a file and an existing file is never replaced without --force.
 */
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { CliError, EXIT, type DownloadOptions } from "./types.js";
import type { Trace } from "./debug.js";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

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

export async function download(url: string, dir: string, name: string, opts: DownloadOptions = {}, trace?: Trace): Promise<string> {
  if (!name || name.includes("/") || name.includes("\\") || name === "." || name === "..") {
    throw new CliError(`not a file name: "${name}"`, EXIT.usage, "invalid_value");
  }
  const targetDir = path.resolve(dir);
  const target = path.join(targetDir, name);
  if (!opts.force && exists(target)) throw refuse(target);
  fs.mkdirSync(targetDir, { recursive: true });
  const tmp = path.join(targetDir, `.${name}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.part`);
  const t0 = performance.now();
  try {
    if (/^https?:\/\//i.test(url)) await fetchTo(url, tmp, trace);
    else {
      const source = /^file:/i.test(url) ? fileURLToPath(url) : path.resolve(url);
      await pipeline(fs.createReadStream(source), fs.createWriteStream(tmp, { flags: "wx" }));
      trace?.(`copy ${source} → ${target} (${Math.round(performance.now() - t0)} ms)`);
    }
    place(tmp, target, opts.force === true);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    if (e instanceof CliError) throw e;
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") throw new CliError(`download failed: source not found (${url})`, EXIT.notFound, "not_found");
    throw new CliError(`download failed: ${err.message}`, EXIT.error, "download_failed");
  }
  return target;
}

async function fetchTo(url: string, tmp: string, trace?: Trace): Promise<void> {
  const { request, Agent, EnvHttpProxyAgent, interceptors } = await import("undici");
  const host = new URL(url).hostname;
  const timeouts = { connectTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 300_000 };
  const base = LOOPBACK.has(host) ? new Agent(timeouts) : new EnvHttpProxyAgent(timeouts);
  const dispatcher = base.compose(interceptors.redirect({ maxRedirections: 5 }));
  const t0 = performance.now();
  try {
    const res = await request(url, { method: "GET", dispatcher });
    trace?.(`GET ${url} → ${res.statusCode} (${Math.round(performance.now() - t0)} ms)`);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump();
      throw new CliError(`download failed: HTTP ${res.statusCode}`, res.statusCode === 404 ? EXIT.notFound : EXIT.error, "download_failed");
    }
    await pipeline(res.body, fs.createWriteStream(tmp, { flags: "wx" }));
  } finally {
    await base.close();
  }
}
