/**
 * `--webhook-listen` on the start commands that take a webhook_url (asset start, avatar create and
 * edit, generate, export): a receiver on 127.0.0.1 for the run (webhook-receiver.ts), its URL as the
 * request's webhook_url, and, once the command has done its work, a bounded wait for the deliveries,
 * each reported on stderr with its signature's verdict (stdout keeps the command's result).
 *
 * The local instance delivers to loopback addresses (its webhook sender applies no address policy:
 * the caller owns this machine); the hosted service cannot reach this machine's 127.0.0.1, so there
 * the flag is refused with the way to do it (`mediagen listen` behind a tunnel, `--webhook <url>`).
 *
 * Light at import time (types only): the receiver is loaded when the flag is used.
 */
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { CliError, EXIT } from "./types.js";
import { defineFlags } from "./flags.js";
import type { ContextGetter } from "./command-context.js";
import type { CommandContext } from "./command-context.js";
import type { WebhookEvent } from "./webhook-receiver.js";

/** After the command's own wait (its job is over): how long the delivery may take to arrive. */
export const DELIVERY_WAIT_AFTER_WATCH_MS = 60_000;
/** Without a wait of the command's own, the delivery comes when the job ends: as long as a watch would wait. */
export const DELIVERY_WAIT_MS = 20 * 60_000;

export interface WebhookListenOptions {
  /** The command's option(s) that carry webhook_url; the first is set. */
  fields: readonly string[];
  /** How many deliveries the run makes (asset start: one per generation). Default 1. */
  expected?: (opts: Record<string, unknown>) => number;
}

/** Where signatures are checked from: a flag's value, MEDIAGEN_WEBHOOK_SECRET, or the local instance's secret. */
export async function webhookSecret(ctx: CommandContext, flag?: string): Promise<{ secret?: string; from: string }> {
  if (flag !== undefined && flag.trim() !== "") return { secret: flag.trim(), from: "--secret" };
  const { readEnv } = await import("../config/env.js");
  const env = readEnv("MEDIAGEN_WEBHOOK_SECRET", ctx.env);
  if (env) return { secret: env, from: "MEDIAGEN_WEBHOOK_SECRET" };
  try {
    // Only an instance that exists is read: listening creates none.
    if ((await ctx.target()) === "local" && fs.existsSync(path.join((await ctx.config()).home, "local", "instance.db"))) {
      const s = (await ctx.localInstance()).getSetting("webhook_secret");
      if (s) return { secret: s, from: "the local instance's webhook secret" };
    }
  } catch {
    // no local instance to read: unchecked
  }
  return { from: "none" };
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** The flag is for targets that can reach this machine's loopback: the local one, or a `mediagen serve` on it. */
async function checkReachable(ctx: CommandContext): Promise<void> {
  if ((await ctx.target()) === "local") return;
  const base = (await ctx.config()).baseUrl;
  let host = "";
  try {
    host = base ? new URL(base).hostname : "";
  } catch {
    // not a URL: refused below
  }
  if (LOOPBACK.has(host)) return;
  throw new CliError(
    "--webhook-listen: the hosted service cannot reach 127.0.0.1 on this machine. Run `mediagen listen` behind a public tunnel and pass the tunnel's URL with --webhook-url (or --webhook).",
    EXIT.usage,
    "usage_error",
    "--webhook-listen",
  );
}

function boundOf(opts: Record<string, unknown>, parseTimeout: (v: string) => number): number {
  const watched = opts.watch === true || opts.download !== undefined || opts.export === true;
  if (watched) return DELIVERY_WAIT_AFTER_WATCH_MS;
  return typeof opts.timeout === "string" ? parseTimeout(opts.timeout) : DELIVERY_WAIT_MS;
}

/** `--webhook-listen`, added by `addWebhookListen`. */
export const WEBHOOK_LISTEN_FLAGS = defineFlags({
  webhookListen: {
    flag: "--webhook-listen",
    type: "boolean",
    help: "local target: receive this job's webhook on 127.0.0.1 (sets webhook_url), print it with its signature check, and wait for it",
  },
});

/**
 * Adds `--webhook-listen` to a start command whose action is already set, wrapping that action: the
 * receiver starts first, the option carrying webhook_url is set to it, the action runs, then the
 * deliveries are awaited (also when the job failed: its failure is delivered too).
 */
export function addWebhookListen(cmd: Command, getContext: ContextGetter, o: WebhookListenOptions): Command {
  WEBHOOK_LISTEN_FLAGS.addTo(cmd);
  const holder = cmd as unknown as { _actionHandler?: (args: unknown[]) => Promise<unknown> };
  const inner = holder._actionHandler;
  if (typeof inner !== "function") throw new Error(`addWebhookListen(${cmd.name()}): set the action first`);
  holder._actionHandler = async (args: unknown[]) => {
    const opts = cmd.opts<Record<string, unknown>>();
    if (opts.webhookListen !== true) return inner.call(cmd, args);
    const ctx = getContext(cmd);
    const given = o.fields.find((f) => opts[f] !== undefined);
    if (given)
      throw new CliError(
        `--webhook-listen sets webhook_url itself: drop --${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
        EXIT.usage,
        "usage_error",
        "--webhook-listen",
      );
    if (opts.dryRun === true) return inner.call(cmd, args);
    await checkReachable(ctx);
    const [{ startReceiver, describeEvent }, { parseDuration, formatDuration }] = await Promise.all([import("./webhook-receiver.js"), import("./parse.js")]);
    const bound = boundOf(opts, (v) => parseDuration(v, "--timeout"));
    const { secret, from } = await webhookSecret(ctx);
    const events: WebhookEvent[] = [];
    let arrived: () => void = () => {};
    const report = (e: WebhookEvent) => {
      if (ctx.opts.json) ctx.io.warn(JSON.stringify({ event: "webhook", ...e }));
      else ctx.io.warn(`Webhook received: ${describeEvent(e)}`);
    };
    const receiver = await startReceiver({
      ...(secret ? { secret } : {}),
      onEvent: (e) => {
        // A repeat (a webhook-id received before: a retry or a duplicate) is reported, not counted as another delivery.
        if (e.signature !== "duplicate") events.push(e);
        report(e);
        arrived();
      },
    });
    if (!ctx.opts.json) {
      ctx.io.info(`Listening for this job's webhook at ${receiver.url} (signatures: ${secret ? `checked with ${from}` : "not checked, no secret set"}).`);
    }
    cmd.setOptionValue(o.fields[0]!, receiver.url);
    let failure: unknown;
    try {
      await inner.call(cmd, args);
    } catch (e) {
      failure = e;
    }
    try {
      // A job that failed is reported by webhook too; any other error means no job was started.
      const started = failure === undefined || (failure instanceof CliError && failure.exitCode === EXIT.jobFailed);
      if (started) {
        const want = Math.max(1, o.expected?.(opts) ?? 1);
        if (events.length < want && !ctx.opts.json) ctx.io.info(`Waiting for the webhook (up to ${formatDuration(bound)})…`);
        let off: () => void = () => {};
        let timer: NodeJS.Timeout | undefined;
        const outcome = await new Promise<"done" | "timeout" | "interrupted">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), bound);
          off = ctx.onInterrupt(() => resolve("interrupted"));
          arrived = () => {
            if (events.length >= want) resolve("done");
          };
          arrived();
        });
        clearTimeout(timer);
        off();
        if (outcome === "interrupted") throw new CliError("Interrupted while waiting for the webhook.", EXIT.interrupted, "interrupted");
        if (outcome === "timeout" && failure === undefined) {
          throw new CliError(
            `no webhook delivery arrived within ${formatDuration(bound)} (${events.length} of ${want}); see \`mediagen local webhooks\` for the delivery log`,
            EXIT.timeout,
            "webhook_timeout",
          );
        }
      }
    } finally {
      await receiver.close();
    }
    if (failure !== undefined) throw failure;
  };
  return cmd;
}
