/**
 * `mediagen local requests [--follow]`: the request journal of `serve` on this home (every API and
 * media request: time, method, path, operation, status, duration, request id, body with keys
 * masked; src/local/request-journal.ts), filtered, or followed as requests arrive. `clear` empties it.
 */
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { table, widthOf } from "../output.js";
import { defineFlags, type FlagInput } from "../flags.js";

type Getter = (cmd: Command) => CommandContext;

interface Entry {
  seq: number;
  at: string;
  method: string;
  path: string;
  op: string | null;
  status: number | null;
  error: string | null;
  duration_ms: number;
  request_id: string | null;
}

/** The filters are checked by the journal (`limit: expected a whole number…`), as for the admin path's. */
const REQUESTS_FLAGS = defineFlags({
  op: { flag: "--op <name>", type: "string", help: "only this operation (assetStart…); a comma-separated list for several" },
  status: { flag: "--status <status>", type: "string", help: "only this status (429) or class (4xx, 5xx); a comma-separated list for several" },
  since: { flag: "--since <time>", type: "string", help: "only requests at or after this time (ISO 8601)" },
  limit: { flag: "--limit <n>", type: "string", help: "only the newest N" },
  follow: { flag: "--follow", type: "boolean", help: "keep printing requests as they arrive (Ctrl-C stops); with --json one JSON line each" },
});

/** How often --follow looks for new entries. */
const FOLLOW_POLL_MS = 500;

function line(e: Entry): string {
  return `${e.at.slice(11, 23)} ${e.method} ${e.path} ${e.op ?? "-"} ${e.status ?? e.error ?? "-"} ${e.duration_ms} ms ${e.request_id ?? ""}`.trimEnd();
}

function rows(ctx: CommandContext, entries: Entry[]): string[] {
  if (!entries.length) {
    ctx.io.info("No requests recorded (serve records every request to the API and to media links).");
    return [];
  }
  return table(
    entries,
    [
      { header: "at", get: (e) => e.at, whole: true },
      { header: "method", get: (e) => e.method },
      { header: "path", get: (e) => e.path },
      { header: "op", get: (e) => e.op ?? "" },
      { header: "status", get: (e) => e.status ?? e.error ?? "", align: "right" },
      { header: "ms", get: (e) => e.duration_ms, align: "right" },
      { header: "request id", get: (e) => e.request_id ?? "", optional: true, id: true },
    ],
    widthOf(ctx.io),
  );
}

/** Prints what arrives after `after` until Ctrl-C: one JSON line each with --json, else one text line. */
async function follow(ctx: CommandContext, list: (after: number) => Entry[], after: number): Promise<void> {
  const stop = new AbortController();
  const off = ctx.onInterrupt(() => stop.abort());
  void ctx.runtime.signals.nextStop().then(() => stop.abort());
  try {
    let last = after;
    // One last look after Ctrl-C, so a request that arrived during the wait is printed too.
    for (;;) {
      for (const e of list(last)) {
        ctx.io.out(ctx.opts.json ? JSON.stringify(e) : line(e));
        last = e.seq;
      }
      if (stop.signal.aborted) break;
      await ctx.runtime.clock.sleep(FOLLOW_POLL_MS, stop.signal).catch(() => {});
    }
  } finally {
    off();
  }
}

export function registerRequests(local: Command, get: Getter): void {
  const requests = REQUESTS_FLAGS.addTo(
    local.command("requests").description("The requests `serve` received on this home (the last 10,000): method, path, operation, status, time, request id, body"),
  ).action(async (flags: FlagInput<typeof REQUESTS_FLAGS>, cmd: Command) => {
    const ctx = get(cmd);
    const instance = await ctx.localInstance();
    const filter = { op: flags.op, status: flags.status, since: flags.since };
    let entries: Entry[];
    try {
      entries = instance.requests.list({ ...filter, limit: flags.limit });
    } catch (e) {
      const m = /^(\w+):/.exec((e as Error).message);
      if ((e as Error).name === "LocalAdminError") throw new CliError((e as Error).message, EXIT.usage, "invalid_value", m ? `--${m[1]}` : undefined);
      throw e;
    }
    if (!flags.follow) {
      ctx.print(
        entries,
        (r) => rows(ctx, r),
        (r) => r.map((e) => String(e.seq)),
      );
      return;
    }
    for (const e of entries) ctx.io.out(ctx.opts.json ? JSON.stringify(e) : line(e));
    const last = entries.at(-1)?.seq ?? Math.max(0, ...instance.requests.list({ limit: 1 }).map((e) => e.seq));
    await follow(ctx, (after) => instance.requests.list({ ...filter, after }), last);
  });
  examples(requests, ["mediagen local requests", "mediagen local requests --op assetStart --status 5xx --json", "mediagen local requests --follow"]);

  const clear = requests
    .command("clear")
    .description("Empty the request journal")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const removed = instance.requests.clear();
      ctx.print(
        { removed },
        () => [],
        () => [],
      );
      if (!ctx.opts.json) ctx.io.info(`Removed ${removed} recorded request(s).`);
    });
  examples(clear, ["mediagen local requests clear"]);
}
