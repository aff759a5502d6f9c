/**
 * `mediagen serve`: the local instance over HTTP, at the service's exact paths, with workers in
 * this process. Heavy modules (SQLite, the server) load only when the command runs.
 */
import type { Command } from "commander";
import { readEnv } from "../../config/env.js";
import { envSetting } from "../env-setting.js";
import { CliError, EXIT } from "../types.js";
import type { CommandModule } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { parseDuration } from "../parse.js";
import { defineFlags, type FlagInput } from "../flags.js";
import type { LocalInstance } from "../../features/local.js";
import type { RunningServer, ServerOptions } from "../../server/server.js";

/** The server's signed media links, as the pages receive them. */
type UrlBuilder = Parameters<NonNullable<ServerOptions["pages"]>>[0];

function parseCount(value: string, flag: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > 100_000) {
    throw new CliError(`${flag} must be a whole number from 1 to 100000, got "${value}"`, EXIT.usage, "invalid_value", flag);
  }
  return Number(value);
}

function parseTimeout(value: string, flag: string): number {
  const ms = parseDuration(value, flag);
  if (ms < 100 || ms > 3_600_000) throw new CliError(`${flag} must be from 100ms to 1h, got "${value}"`, EXIT.usage, "invalid_value", flag);
  return ms;
}

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > 65535) {
    throw new CliError(`--port must be a number from 0 to 65535, got "${value}"`, EXIT.usage, "invalid_value", "port");
  }
  return Number(value);
}

/** `serve`'s flags; the numbers and durations are checked (and converted) by `SERVE_FLAGS.values`. */
export const SERVE_FLAGS = defineFlags({
  host: { flag: "--host <host>", type: "string", default: "127.0.0.1", help: "address to bind (non-loopback exposes the instance to the network)" },
  port: { flag: "--port <port>", type: "string", default: "4010", to: parsePort, help: "port to listen on; 0 picks a free one" },
  publicUrl: { flag: "--public-url <url>", type: "string", help: "URL clients reach this server at, used in media links (default: the listening address)" },
  allowLocalFiles: {
    flag: "--allow-local-files",
    type: "boolean",
    help: "let requests use files on this machine (file:// URLs, plain paths) as media inputs, as in-process calls can; off by default",
  },
  allowPrivateUrls: {
    flag: "--allow-private-urls",
    type: "boolean",
    help: "let media URLs reach loopback, private and link-local addresses (your own network); off by default",
  },
  ui: { flag: "--no-ui", type: "boolean", help: "do not serve the dashboard pages at / (mediagen ui)" },
  uiAllowRemote: {
    flag: "--ui-allow-remote",
    type: "boolean",
    help: "let clients on other machines read the dashboard pages at / (they show every space and webhook payload); off by default: this machine only",
  },
  faults: { flag: "--faults <file>", type: "string", help: "add the fault rules of this JSON file at start (see `mediagen local faults add --help`)" },
  fromSnapshot: { flag: "--from-snapshot <name>", type: "string", help: "start from this snapshot of the instance (`mediagen local snapshot save`)" },
  ephemeral: { flag: "--ephemeral", type: "boolean", help: "serve a throwaway instance in a temp home, removed at exit (CI); --json adds its home and key" },
  admin: { flag: "--no-admin", type: "boolean", help: "turn off the admin path /_mediagen/ (faults, snapshots, clock; loopback clients only)" },
  adminToken: { flag: "--admin-token <token>", type: "string", help: "let non-loopback clients use the admin path with X-Mediagen-Admin-Token: <token>" },
  maxConnections: {
    flag: "--max-connections <n>",
    type: "string",
    default: "512",
    to: parseCount,
    help: "connections held at once, all clients together; past it the oldest idle one is closed, or the new one answered 503",
  },
  maxConnectionsPerClient: {
    flag: "--max-connections-per-client <n>",
    type: "string",
    default: "128",
    to: parseCount,
    help: "connections held at once from one client address (same rule)",
  },
  headersTimeout: {
    flag: "--headers-timeout <duration>",
    type: "string",
    default: "20s",
    to: parseTimeout,
    help: "time a client has to send a request's headers; past it: 408 and closed",
  },
  bodyTimeout: {
    flag: "--body-timeout <duration>",
    type: "string",
    default: "30s",
    to: parseTimeout,
    help: "time a client has, after the headers, to send the body; past it: 408 and closed",
  },
});

/** The checked flags of a `serve` command line (a default counts as given: host, port, ui… are always there). */
type ServeFlags = ReturnType<typeof SERVE_FLAGS.values> & { host: string; port: number };

/** Refuses a bad --public-url and warns about every flag that opens the instance up. */
function checkServeFlags(
  ctx: CommandContext,
  flags: ServeFlags,
  isLoopbackAddress: (host: string) => boolean,
): { allowLocalFiles: boolean; allowPrivateNetwork: boolean } {
  if (flags.publicUrl !== undefined) {
    try {
      const u = new URL(flags.publicUrl);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    } catch {
      throw new CliError(`--public-url must be an http(s) URL, got "${flags.publicUrl}"`, EXIT.usage, "invalid_value", "public_url");
    }
  }
  const allowLocalFiles = flags.allowLocalFiles === true;
  if (allowLocalFiles) {
    ctx.io.warn("warning: --allow-local-files lets any client holding a key of this instance read files this process can read, as media inputs.");
  }
  const allowPrivateNetwork = flags.allowPrivateUrls === true;
  if (allowPrivateNetwork) {
    ctx.io.warn(
      "warning: --allow-private-urls lets any client holding a key of this instance make this machine fetch from its own network (loopback, private and link-local addresses).",
    );
  }
  if (!isLoopbackAddress(flags.host)) {
    ctx.io.warn(
      `warning: binding ${flags.host} exposes the local instance to the network; anyone who can reach it and holds a key can use it.` +
        (flags.publicUrl ? "" : " Pass --public-url so media links use a reachable address."),
    );
  }
  return { allowLocalFiles, allowPrivateNetwork };
}

/** Why the server could not listen, as the CLI says it (other errors pass through). */
function listenError(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") {
    return new CliError(`${host}:${port} is already in use; choose another --port (0 picks a free one)`, EXIT.error, "address_in_use");
  }
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EACCES") {
    return new CliError(`cannot listen on ${host}:${port} (${code})`, EXIT.error, "listen_failed");
  }
  return e;
}

/** The dashboard of `mediagen ui` at `/` (src/ui/, loaded only when serving it). */
async function dashboardPages(home: string, flags: ServeFlags) {
  const [{ createUiHandler }, { PageGuard }] = await Promise.all([import("../../ui/handler.js"), import("../../ui/guard.js")]);
  const hosts = flags.publicUrl ? [new URL(flags.publicUrl).hostname.replace(/^\[|\]$/g, "")] : [];
  const guard = new PageGuard({ allowRemote: flags.uiAllowRemote === true, hosts });
  return Object.assign((instance: LocalInstance, urls: UrlBuilder) => createUiHandler({ instance, home, urls: () => urls, guard }), {
    url: (origin: string) => guard.urlFor(origin),
  });
}

interface ServedInstance {
  instance: LocalInstance;
  home: string;
  /** Removes the home of `--ephemeral` (nothing otherwise). */
  removeHome(): Promise<void>;
}

/**
 * The instance `serve` serves: the configured home's, or with `--ephemeral` a temp home's (removed
 * when serve stops, or at once if starting fails); started from `--from-snapshot` (an ephemeral
 * instance takes it from the configured home) and with the rules of `--faults`.
 */
async function openServed(
  ctx: CommandContext,
  flags: ServeFlags,
  configHome: string,
  faultRules: unknown[] | undefined,
  open: (home: string) => LocalInstance,
): Promise<ServedInstance> {
  const [fs, os, path] = await Promise.all([import("node:fs"), import("node:os"), import("node:path")]);
  const home = flags.ephemeral ? fs.mkdtempSync(path.join(os.tmpdir(), "mediagen-ephemeral-")) : configHome;
  const removeHome = async () => {
    if (flags.ephemeral) await fs.promises.rm(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
  let instance: LocalInstance | undefined;
  try {
    instance = open(home);
    if (flags.fromSnapshot !== undefined) {
      const fromDir = flags.ephemeral ? path.join(configHome, "local", "snapshots", flags.fromSnapshot) : undefined;
      const restored = await instance.restoreSnapshot(flags.fromSnapshot, fromDir ? { fromDir } : {});
      ctx.io.info(`Started from snapshot ${restored.name} (saved ${restored.created_at}).`);
    }
    if (faultRules) instance.faults.add(faultRules as never, "file");
    return { instance, home, removeHome };
  } catch (e) {
    await instance?.close();
    await removeHome();
    throw e;
  }
}

/** Opens the instance and starts the server over it, then serves until stopped. */
async function runServe(ctx: CommandContext, raw: FlagInput<typeof SERVE_FLAGS>): Promise<void> {
  const flags = SERVE_FLAGS.values(raw) as ServeFlags;
  const port = flags.port;
  const faultRules = flags.faults !== undefined ? (await import("./local-faults.js")).readFaultsFile(flags.faults, "--faults") : undefined;
  const connections = { max: flags.maxConnections!, perClient: flags.maxConnectionsPerClient! };
  const headersTimeoutMs = flags.headersTimeout!;
  const bodyTimeoutMs = flags.bodyTimeout!;
  // Checked before anything loads, so a bad value fails fast (the instance reads them the same way).
  envSetting(() => [readEnv("MEDIAGEN_LOCAL_RATE_LIMIT", ctx.env), readEnv("MEDIAGEN_LOCAL_RATE_WINDOW_MS", ctx.env)]);
  const { home: configHome } = await ctx.config();

  const [{ openLocalInstance, rateLimitFromEnv, showLocalDebug }, { startServer, isLoopbackAddress }, { redact }] = await Promise.all([
    import("../../features/local.js"),
    import("../../server/server.js"),
    import("../../engine/redact.js"),
  ]);
  const { allowLocalFiles, allowPrivateNetwork } = checkServeFlags(ctx, flags, isLoopbackAddress);

  if (flags.uiAllowRemote && flags.ui !== false) {
    ctx.io.warn(
      "warning: --ui-allow-remote lets anyone who can reach this server read the dashboard pages (spaces, key ids, ledgers, webhook payloads) and resend webhooks.",
    );
  }
  const pages = flags.ui !== false ? await dashboardPages(ctx.home, flags) : undefined;

  const rateLimit = rateLimitFromEnv(ctx.env);
  // --debug also turns on the local instance's own lines (query parameters it ignored, why a request
  // or a job failed), as MEDIAGEN_DEBUG does.
  if (ctx.opts.debug) showLocalDebug();
  const { instance, home, removeHome } = await openServed(ctx, flags, configHome, faultRules, (home) =>
    openLocalInstance({
      home,
      worker: "inline",
      rateLimit,
      // Storage problems (a full disk, the database deleted under the server) are the operator's to fix: say so on stderr.
      log: (line) => ctx.io.warn(redact(`serve: ${line}`)),
    }),
  );
  const trace = ctx.opts.debug ? (line: string) => ctx.io.warn(redact(`[serve] ${line}`)) : undefined;
  let running: RunningServer;
  try {
    running = await startServer({
      instance,
      host: flags.host,
      port,
      ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
      allowLocalFiles,
      allowPrivateNetwork,
      admin: flags.admin !== false,
      ...(flags.adminToken ? { adminToken: flags.adminToken } : {}),
      connections,
      headersTimeoutMs,
      bodyTimeoutMs,
      onError: (err) => ctx.io.warn(redact(`serve: internal error: ${ctx.opts.debug && err instanceof Error ? err.stack : String(err)}`)),
      ...(trace ? { accessLog: trace } : {}),
      ...(pages ? { pages: (urls: UrlBuilder) => pages(instance, urls) } : {}),
    });
  } catch (e) {
    await instance.close();
    await removeHome();
    throw listenError(e, flags.host, port);
  }

  await serveUntilStopped(ctx, flags, { instance, home, removeHome, running, rateLimit, ...(pages ? { dashboard: pages.url(running.origin) } : {}) });
}

/** Prints where the server listens, then on the first stop signal drains requests and jobs and closes. */
async function serveUntilStopped(
  ctx: CommandContext,
  flags: ServeFlags,
  s: {
    instance: LocalInstance;
    home: string;
    removeHome: () => Promise<void>;
    running: RunningServer;
    rateLimit: { limit: number; windowMs: number };
    /** The dashboard's address with this run's secret. */
    dashboard?: string;
  },
): Promise<void> {
  const { instance, home, removeHome, running, rateLimit } = s;
  // The first Ctrl-C or SIGTERM stops the server; in a real process a second one ends it at once.
  const stopped = ctx.runtime.signals.nextStop();
  if (ctx.opts.json) {
    ctx.io.out(
      JSON.stringify({
        base_url: running.baseUrl,
        ...(s.dashboard ? { dashboard_url: s.dashboard } : {}),
        ...(flags.ephemeral ? { home, api_key: instance.defaultKey() } : {}),
      }),
    );
  } else ctx.io.out(running.baseUrl);
  if (s.dashboard && !ctx.opts.json) ctx.io.info(`Dashboard: ${s.dashboard}`);
  ctx.io.info(`Serving the local instance at ${home} — rate limit ${rateLimit.limit} per ${rateLimit.windowMs / 1000} s. Ctrl-C stops.`);

  const sig = await stopped;
  ctx.io.info(`Stopping (${sig}): finishing requests and jobs in flight…`);
  await running.close(5_000);
  // Running jobs get a moment to finish; the rest are handed back to the queue (leases released).
  await instance.stopWorker(5_000);
  await instance.close();
  await removeHome();
  ctx.io.info(flags.ephemeral ? `Stopped; removed ${home}.` : "Stopped.");
}

export const command: CommandModule = {
  register(serve: Command, getContext) {
    SERVE_FLAGS.addTo(serve).action(async (flags: FlagInput<typeof SERVE_FLAGS>, cmd: Command) => runServe(getContext(cmd), flags));
    examples(serve, [
      "mediagen serve",
      'mediagen serve --port 0 --json        # prints {"base_url": …} once listening',
      "mediagen --target hosted --base-url http://127.0.0.1:4010 folder list",
      "MEDIAGEN_LOCAL_RATE_LIMIT=10000 mediagen serve --port 8080",
      "mediagen serve --allow-local-files   # requests may name files on this machine",
      "mediagen serve --allow-private-urls  # media URLs may point into your own network",
      "mediagen serve --no-ui                # the API only: no dashboard pages at /",
      "mediagen serve --ephemeral --port 0 --json   # CI: a throwaway instance; prints base_url, home and api_key",
      "mediagen serve --ephemeral --from-snapshot clean --faults faults.json",
    ]);
    serve.addHelpText(
      "after",
      "\nEnvironment: MEDIAGEN_LOCAL_RATE_LIMIT (requests per window, default 100), " +
        "MEDIAGEN_LOCAL_RATE_WINDOW_MS (window length, default 60000). Media links are signed and expire after 7 days.",
    );
  },
};
