/**
 * Shared helpers for tests of the local instance: a temp MEDIAGEN_HOME, an instance with an inline
 * worker and a default PRO space, and a poll helper. Homes are removed when the test process exits.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openLocalInstance, type LocalInstance, type OpenOptions } from "../../src/features/local.js";
import type { LocalEngine } from "../../src/local/local-engine.js";

const homes: string[] = [];
const open: LocalInstance[] = [];
let cleanupRegistered = false;

function registerCleanup(): void {
  if (cleanupRegistered) return;
  cleanupRegistered = true;
  process.on("exit", () => {
    for (const i of open) {
      try {
        void i.close();
      } catch {
        // already closed
      }
    }
    for (const h of homes) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });
}

/** A fresh temp dir, set as MEDIAGEN_HOME for this test process. */
export function tempHome(): string {
  registerCleanup();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  homes.push(home);
  process.env.MEDIAGEN_HOME = home;
  return home;
}

export type TestInstance = LocalInstance & {
  /** The same object, so `const { instance, key } = openTestInstance()` reads naturally. */
  instance: LocalInstance;
  /** Key of the default space (PRO, 1000 credits). */
  key: string;
  /** An engine speaking to the instance with `key`. */
  api: LocalEngine;
};

/**
 * An instance on a new temp home, worker `inline` unless told otherwise, with the default space's
 * key created. Options are OpenOptions (clock, ids, rateLimit, leaseMs, concurrency, worker, home).
 */
export function openTestInstance(opts: Partial<OpenOptions> = {}): TestInstance {
  const home = opts.home ?? tempHome();
  const inst = openLocalInstance({ worker: "inline", ...opts, home });
  open.push(inst);
  const key = inst.defaultKey();
  return Object.assign(inst, { instance: inst, key, api: inst.engine(key) }) as TestInstance;
}

/** Polls `fn` until it returns something truthy (sync or async) and returns that; throws after `timeoutMs`. */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 5000, intervalMs = 10): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new Error(`waitFor timed out after ${timeoutMs} ms${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
