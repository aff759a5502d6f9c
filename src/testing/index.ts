/**
 * `mediagen/testing`: the local instance as a test bench for an app that calls the service. One call
 * starts a throwaway emulator and hands back what a test needs — its base URL and a key, the request
 * journal, fault rules, snapshots, the clock, a webhook receiver — over `serve`'s admin path.
 *
 * The emulator runs as a child process (`mediagen serve --ephemeral --port 0 --json`), not inside the
 * test's process, so that it works the same under node:test, vitest and jest: fake timers
 * (`vi.useFakeTimers`, `jest.useFakeTimers`) cannot freeze its workers and retries, jest's module
 * registry and vitest's workers never load its native SQLite addon, and a test that crashes cannot
 * leave a half-written database in the runner. Readiness is the JSON line serve prints once it
 * listens (no sleep). This module imports Node built-ins only: it is also built as CommonJS
 * (dist/testing/index.cjs) for runners that `require` it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface StartOptions {
  /** Credits of the test space (default 1000). */
  credits?: number;
  /** Plan of the test space: free, start, PRO or ENTREPRISE (default PRO). */
  plan?: string;
  /** Requests per rate-limit window (MEDIAGEN_LOCAL_RATE_LIMIT; default the service's 100). */
  rateLimit?: number;
  /** Fault rules in place from the start (as `POST /_mediagen/faults` takes them). */
  faults?: FaultRuleInput[];
  /** Sign webhook deliveries with this secret (`whsec_…`; true: a new one). */
  webhookSecret?: string | true;
  /** Serve the dashboard pages at / too (default false). */
  ui?: boolean;
  /** More `mediagen serve` flags. */
  args?: string[];
  /** Environment of the child (laid over this process's). */
  env?: Record<string, string>;
  /** How long to wait for serve to listen (default 30 s). */
  readyTimeoutMs?: number;
  /** The mediagen executable (default this package's bin/mediagen.js). */
  bin?: string;
}

/** A fault rule as the admin path takes it (src/local/fault-rule.ts). */
export interface FaultRuleInput {
  op: string;
  action: string;
  status?: number;
  code?: string;
  message?: string;
  retry_after?: number;
  ms?: number | string;
  step?: string;
  by?: number;
  probability?: number;
  times?: number;
  expires_in?: string;
  expires_at?: string;
  space?: string;
  key?: string;
}

export interface FaultRule {
  id: string;
  op: string;
  action: string;
  params: Record<string, unknown>;
  remaining: number | null;
  hits: number;
  state: "active" | "spent" | "expired";
  [field: string]: unknown;
}

/**
 * One request the emulator received (`GET /_mediagen/requests`). The emulator's request journal
 * (src/local/request-journal.ts) stores and lists entries of this very type.
 */
export interface RecordedRequest {
  /** Increasing per home: `after=<seq>` reads what came since. */
  seq: number;
  /** When the request arrived, on the instance's clock (ISO 8601). */
  at: string;
  method: string;
  /** The path, without the query. */
  path: string;
  /** The query of an API request (media links' signatures are left out). */
  query: string | null;
  /** The operation (`assetStart`…), `media` for a file, null for an unknown path. */
  op: string | null;
  /** The status answered; null when no answer was sent (a fault dropped the connection, the client left). */
  status: number | null;
  /** Why there is no status: `reset`, `empty` (fault rules) or `client_closed`. */
  error: string | null;
  duration_ms: number;
  request_id: string | null;
  /** The JSON body of a POST, key-like values masked; null for none. */
  body: unknown;
  body_truncated: boolean;
}

export interface RequestFilter {
  /** Operation name(s): `assetStart`, or several. */
  op?: string | string[];
  /** `429`, `"5xx"`, or several. */
  status?: number | string | (number | string)[];
  /** At or after this time. */
  since?: Date | string;
  method?: string;
  limit?: number;
}

/** One webhook delivery the receiver got. */
export interface ReceivedWebhook {
  /** The `webhook-id` header: the same on a retry, a resend and a duplicate. */
  id: string | null;
  /** True when this `webhook-id` arrived before (a repeat your app should ignore). */
  repeat: boolean;
  headers: Record<string, string>;
  /** The JSON body (text if it was not JSON). */
  body: unknown;
  raw: string;
  received_at: string;
}

export interface ClockState {
  /** What the emulator reads now, ISO 8601. */
  now: string;
  /** What the machine's clock reads, ISO 8601. */
  real: string;
  /** Milliseconds added to the real clock. */
  offset_ms: number;
  /** While frozen, the instant the clock stays at (ms since the epoch). */
  frozen_at: number | null;
}

export interface Emulator {
  /** `http://127.0.0.1:<port>/api/public/v1`: point the app's base URL here. */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>`: the admin path is under `/_mediagen/`, the dashboard at `/`. */
  readonly origin: string;
  /** A key of the test space (its plan and credits as asked). */
  readonly apiKey: string;
  readonly spaceId: string;
  /** The emulator's temp home (removed by stop()). */
  readonly home: string;
  /** The journal's entries matching the filter, oldest first. */
  requests(filter?: RequestFilter): Promise<RecordedRequest[]>;
  /** Empties the request journal. */
  clearRequests(): Promise<void>;
  readonly faults: {
    add(rules: FaultRuleInput | FaultRuleInput[]): Promise<FaultRule[]>;
    list(): Promise<FaultRule[]>;
    clear(id?: string): Promise<number>;
  };
  snapshot(name: string): Promise<void>;
  restore(name: string): Promise<void>;
  readonly clock: {
    advance(duration: string | number): Promise<ClockState>;
    freeze(): Promise<ClockState>;
    reset(): Promise<ClockState>;
    get(): Promise<ClockState>;
  };
  readonly webhooks: {
    /** Give this as the app's `webhook_url`. */
    readonly url: string;
    /** Every delivery received so far (repeats included, marked). */
    deliveries(): ReceivedWebhook[];
    /** Resolves once `count` deliveries (repeats included) have arrived; rejects after `timeoutMs` (default 10 s). */
    waitFor(count?: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
    /** Forgets the deliveries received. */
    clear(): void;
    /** The signing secret (null: unsigned). */
    secret(): Promise<string | null>;
  };
  /** Any admin endpoint (`GET /_mediagen/openapi.json` lists them): the parsed JSON answer; throws on an error status. */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Back to the state right after start: the space and key as created, no rules, clock reset, journal and received webhooks emptied. */
  reset(): Promise<void>;
  /** Stops the emulator (its temp home removed) and the webhook receiver. */
  stop(): Promise<void>;
}

/** What an admin call answered when it was not a 2xx. */
export class EmulatorError extends Error {
  override readonly name = "EmulatorError";
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

const BASELINE = "mediagen-testing-baseline";

function defaultBin(): string {
  // dist/testing/index.(c)js → <package>/bin/mediagen.js; from src/testing/ (tests through tsx or vitest) the same.
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "mediagen.js");
}

interface Ready {
  child: ChildProcess;
  baseUrl: string;
  home: string;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Starts `serve --ephemeral --port 0 --json` and resolves with its JSON line (readiness: no sleep). */
function spawnServe(o: StartOptions): Promise<Ready> {
  const args = [o.bin ?? defaultBin(), "serve", "--ephemeral", "--port", "0", "--json", "--allow-private-urls", ...(o.ui ? [] : ["--no-ui"]), ...(o.args ?? [])];
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...(o.rateLimit !== undefined ? { MEDIAGEN_LOCAL_RATE_LIMIT: String(o.rateLimit) } : {}), ...o.env };
  // The emulator is the target here, whatever the test process's environment names.
  for (const k of ["MEDIAGEN_TARGET", "MEDIAGEN_BASE_URL", "MEDIAGEN_API_KEY", "MEDIAGEN_PROFILE"]) if (!o.env || !(k in o.env)) delete env[k];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stderr!.on("data", (d: Buffer) => {
    err = (err + d.toString()).slice(-8192);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mediagen serve did not start within ${o.readyTimeoutMs ?? 30_000} ms; stderr: ${err.trim()}`));
    }, o.readyTimeoutMs ?? 30_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`mediagen serve exited (${code}) before it was ready; stderr: ${err.trim()}`));
    });
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        const line = JSON.parse(out.slice(0, nl)) as { base_url: string; home: string };
        resolve({ child, baseUrl: line.base_url, home: line.home, exited, stderr: () => err });
      } catch {
        child.kill("SIGKILL");
        reject(new Error(`mediagen serve printed an unexpected first line: ${out.slice(0, nl)}`));
      }
    });
  });
}

/** A webhook receiver on 127.0.0.1 recording every POST (answered 200), repeats marked by webhook-id. */
function startReceiver(): Promise<{ url: string; got: ReceivedWebhook[]; changed: Set<() => void>; close(): Promise<void> }> {
  const got: ReceivedWebhook[] = [];
  const seen = new Set<string>();
  const changed = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // kept as text
      }
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
      const id = headers["webhook-id"] || null;
      const repeat = id !== null && seen.has(id);
      if (id !== null) seen.add(id);
      got.push({ id, repeat, headers, body, raw, received_at: new Date().toISOString() });
      res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      for (const f of changed) f();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port;
      server.unref();
      resolve({
        url: `http://127.0.0.1:${port}/webhooks`,
        got,
        changed,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** An admin call: JSON in, JSON out, an EmulatorError for any status but 2xx. */
function adminCaller(origin: string) {
  return async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${origin}/_mediagen/${p.replace(/^\/+/, "")}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const data = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const why = (data as { details?: { message?: string }[] } | undefined)?.details?.[0]?.message ?? text;
      throw new EmulatorError(`${method} /_mediagen/${p}: HTTP ${res.status}: ${why}`, res.status, data);
    }
    return data as T;
  };
}

function queryOf(f: RequestFilter): string {
  const q = new URLSearchParams();
  const list = (v: unknown) => (Array.isArray(v) ? v.join(",") : String(v));
  if (f.op !== undefined) q.set("op", list(f.op));
  if (f.status !== undefined) q.set("status", list(f.status));
  if (f.since !== undefined) q.set("since", f.since instanceof Date ? f.since.toISOString() : f.since);
  if (f.method !== undefined) q.set("method", f.method);
  if (f.limit !== undefined) q.set("limit", String(f.limit));
  const s = q.toString();
  return s ? `?${s}` : "";
}

function webhooksOf(receiver: Awaited<ReturnType<typeof startReceiver>>, admin: ReturnType<typeof adminCaller>): Emulator["webhooks"] {
  return {
    url: receiver.url,
    deliveries: () => [...receiver.got],
    clear: () => {
      receiver.got.length = 0;
    },
    secret: async () => (await admin<{ webhook_secret: string | null }>("GET", "webhook-secret")).webhook_secret,
    waitFor: (count = 1, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (receiver.got.length < count) return;
          receiver.changed.delete(check);
          clearTimeout(timer);
          resolve([...receiver.got]);
        };
        const timer = setTimeout(() => {
          receiver.changed.delete(check);
          reject(new Error(`${receiver.got.length} of ${count} webhook deliveries arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        receiver.changed.add(check);
        check();
      }),
  };
}

/** Sets up the test space, the start's rules and secret, and the baseline snapshot reset() returns to. */
async function prepare(admin: ReturnType<typeof adminCaller>, o: StartOptions): Promise<{ apiKey: string; spaceId: string }> {
  const made = await admin<{ api_key: string; space_id: string }>("POST", "keys", { plan: o.plan ?? "PRO", credits: o.credits ?? 1000 });
  if (o.webhookSecret !== undefined) await admin("POST", "webhook-secret", o.webhookSecret === true ? {} : { secret: o.webhookSecret });
  await admin("POST", "snapshots", { name: BASELINE, replace: true });
  if (o.faults?.length) await admin("POST", "faults", o.faults);
  return { apiKey: made.api_key, spaceId: made.space_id };
}

/**
 * Starts a throwaway emulator and a webhook receiver. `await mg.stop()` when done (afterAll): the
 * emulator's temp home is removed; a process that exits without it still ends the child.
 */
export async function startEmulator(o: StartOptions = {}): Promise<Emulator> {
  const ready = await spawnServe(o);
  const { child } = ready;
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  // A runner that forgets stop() is not kept alive by the child (killOnExit still ends it).
  child.unref();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  (child.stderr as unknown as { unref?: () => void }).unref?.();
  const origin = new URL(ready.baseUrl).origin;
  const admin = adminCaller(origin);
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  let setup: { apiKey: string; spaceId: string };
  try {
    receiver = await startReceiver();
    setup = await prepare(admin, o);
  } catch (e) {
    await receiver?.close();
    child.kill("SIGKILL");
    throw e;
  }
  const rx = receiver;
  let stopped: Promise<void> | undefined;
  return {
    baseUrl: ready.baseUrl,
    origin,
    apiKey: setup.apiKey,
    spaceId: setup.spaceId,
    home: ready.home,
    requests: async (f = {}) => (await admin<{ requests: RecordedRequest[] }>("GET", `requests${queryOf(f)}`)).requests,
    clearRequests: async () => void (await admin("DELETE", "requests")),
    faults: {
      add: async (rules) => (await admin<{ rules: FaultRule[] }>("POST", "faults", rules)).rules,
      list: async () => (await admin<{ rules: FaultRule[] }>("GET", "faults")).rules,
      clear: async (id) => (await admin<{ removed: number }>("DELETE", id === undefined ? "faults" : `faults/${encodeURIComponent(id)}`)).removed,
    },
    snapshot: async (name) => void (await admin("POST", "snapshots", { name, replace: true })),
    restore: async (name) => void (await admin("POST", `snapshots/${encodeURIComponent(name)}/restore`)),
    clock: {
      advance: (duration) => admin<ClockState>("POST", "clock", { advance: duration }),
      freeze: () => admin<ClockState>("POST", "clock", { freeze: true }),
      reset: () => admin<ClockState>("POST", "clock", { reset: true }),
      get: () => admin<ClockState>("GET", "clock"),
    },
    webhooks: webhooksOf(rx, admin),
    admin,
    reset: async () => {
      await admin("POST", `snapshots/${BASELINE}/restore`);
      await admin("DELETE", "requests");
      rx.got.length = 0;
    },
    stop: () => {
      stopped ??= (async () => {
        process.off("exit", killOnExit);
        await rx.close();
        if (child.exitCode === null && child.signalCode === null) {
          // Kept alive again while it stops: its temp home is removed before this resolves.
          child.ref();
          child.kill("SIGTERM");
          const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
          await ready.exited;
          clearTimeout(force);
        }
      })();
      return stopped;
    },
  };
}
