/**
 * `mediagen serve`: the local instance over HTTP, at the service's exact paths, with workers in
 * this process. Heavy modules (SQLite, the server) load only when the command runs.
 */
import type { Command } from "commander";
import { readEnv } from "../../config/env.js";
import { envSetting } from "../env-setting.js";
import { CliError, EXIT, type CommandModule } from "../types.js";
import type { CliContext } from "../context.js";
import { examples } from "../help-text.js";

interface ServeFlags {
  host: string;
  port: string;
  publicUrl?: string;
  allowLocalFiles?: boolean;
  allowPrivateUrls?: boolean;
}

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > 65535) {
    throw new CliError(`--port must be a number from 0 to 65535, got "${value}"`, EXIT.usage, "invalid_value", "port");
  }
  return Number(value);
}

/** Refuses a bad --public-url and warns about every flag that opens the instance up. */
function checkServeFlags(
  ctx: CliContext,
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
    ctx.io.warn(
      "warning: --allow-local-files lets any client holding a key of this instance read files this process can read, as media inputs.",
    );
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

export const command: CommandModule = {
  register(serve: Command, getContext) {
    serve
      .option("--host <host>", "address to bind (non-loopback exposes the instance to the network)", "127.0.0.1")
      .option("--port <port>", "port to listen on; 0 picks a free one", "4010")
      .option("--public-url <url>", "URL clients reach this server at, used in media links (default: the listening address)")
      .option(
        "--allow-local-files",
        "let requests use files on this machine (file:// URLs, plain paths) as media inputs, as in-process calls can; off by default",
      )
      .option(
        "--allow-private-urls",
        "let media URLs reach loopback, private and link-local addresses (your own network); off by default",
      )
      .action(async (flags: ServeFlags, cmd: Command) => {
        const ctx = getContext(cmd) as CliContext;
        const port = parsePort(flags.port);
        // Checked before anything loads, so a bad value fails fast (the instance reads them the same way).
        envSetting(() => [readEnv("MEDIAGEN_LOCAL_RATE_LIMIT", ctx.env), readEnv("MEDIAGEN_LOCAL_RATE_WINDOW_MS", ctx.env)]);
        const { home } = await ctx.config();

        const [{ openLocalInstance, rateLimitFromEnv }, { startServer, isLoopbackAddress }, { redact }] = await Promise.all([
          import("../../features/local.js"),
          import("../../server/server.js"),
          import("../../engine/redact.js"),
        ]);
        const { allowLocalFiles, allowPrivateNetwork } = checkServeFlags(ctx, flags, isLoopbackAddress);

        const rateLimit = rateLimitFromEnv(ctx.env);
        const instance = openLocalInstance({
          home,
          worker: "inline",
          rateLimit,
          // Storage problems (a full disk, the database deleted under the server) are the operator's to fix: say so on stderr.
          log: (line) => ctx.io.warn(redact(`serve: ${line}`)),
        });
        const trace = ctx.opts.debug ? (line: string) => ctx.io.warn(redact(`[serve] ${line}`)) : undefined;
        let running: Awaited<ReturnType<typeof startServer>>;
        try {
          running = await startServer({
            instance,
            host: flags.host,
            port,
            ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
            allowLocalFiles,
            allowPrivateNetwork,
            onError: (err) => ctx.io.warn(redact(`serve: internal error: ${ctx.opts.debug && err instanceof Error ? err.stack : String(err)}`)),
            ...(trace ? { accessLog: trace } : {}),
          });
        } catch (e) {
          await instance.close();
          throw listenError(e, flags.host, port);
        }

        // The first Ctrl-C or SIGTERM stops the server; in a real process a second one ends it at once.
        const stopped = ctx.runtime.signals.nextStop();
        if (ctx.opts.json) ctx.io.out(JSON.stringify({ base_url: running.baseUrl }));
        else ctx.io.out(running.baseUrl);
        ctx.io.info(
          `Serving the local instance at ${home} — rate limit ${rateLimit.limit} per ${rateLimit.windowMs / 1000} s. Ctrl-C stops.`,
        );

        const sig = await stopped;
        ctx.io.info(`Stopping (${sig}): finishing requests and jobs in flight…`);
        await running.close(5_000);
        // Running jobs get a moment to finish; the rest are handed back to the queue (leases released).
        await instance.stopWorker(5_000);
        await instance.close();
        ctx.io.info("Stopped.");
      });
    examples(serve, [
      "mediagen serve",
      "mediagen serve --port 0 --json        # prints {\"base_url\": …} once listening",
      "mediagen --target hosted --base-url http://127.0.0.1:4010 folder list",
      "MEDIAGEN_LOCAL_RATE_LIMIT=10000 mediagen serve --port 8080",
      "mediagen serve --allow-local-files   # requests may name files on this machine",
      "mediagen serve --allow-private-urls  # media URLs may point into your own network",
    ]);
    serve.addHelpText(
      "after",
      "\nEnvironment: MEDIAGEN_LOCAL_RATE_LIMIT (requests per window, default 100), " +
        "MEDIAGEN_LOCAL_RATE_WINDOW_MS (window length, default 60000). Media links are signed and expire after 7 days.",
    );
  },
};
