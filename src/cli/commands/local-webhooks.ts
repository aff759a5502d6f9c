/**
 * `mediagen local webhooks resend|trigger`: a recorded delivery sent again, or a sample delivery of
 * a task (hosted-facts' bodies, signed when the instance has a secret) sent to a URL — the one
 * `mediagen listen` prints, or your app's. The delivery goes out from `serve` or a background worker;
 * `--wait` waits for its outcome.
 */
import fs from "node:fs";
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { defineFlags, flagError, type FlagInput } from "../flags.js";

type Getter = (cmd: Command) => CommandContext;

interface DeliveryView {
  id: string;
  url: string;
  task: string | null;
  status: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
}

const TASKS = "video_generate, video_export, avatar_create, avatar_edit, asset_generation";
const WAIT_MS = 30_000;

function readData(file: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new CliError(`--data: cannot read JSON from ${file} (${why})`, EXIT.usage, "invalid_value", "--data");
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new CliError(`--data: ${file} must hold a JSON object`, EXIT.usage, "invalid_value", "--data");
  return data as Record<string, unknown>;
}

/** Polls the delivery until it is no longer pending (or the wait ends); its view. */
async function settle(ctx: CommandContext, id: string, wait: boolean): Promise<DeliveryView> {
  const instance = await ctx.localInstance();
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const d = instance.webhookDelivery(id) as DeliveryView | undefined;
    if (!d) throw new CliError(`delivery ${id} vanished`, EXIT.error, "not_found");
    if (!wait || d.status !== "pending" || Date.now() > deadline) return d;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function report(ctx: CommandContext, d: DeliveryView, wait: boolean): void {
  const view = { id: d.id, task: d.task, url: d.url, status: d.status, attempts: d.attempts, last_status: d.last_status, last_error: d.last_error };
  ctx.print(
    view,
    (v) => [`${v.id} ${v.task ?? ""} → ${v.url}: ${v.status}${v.last_status !== null ? ` (HTTP ${v.last_status})` : ""}${v.last_error ? ` ${v.last_error}` : ""}`],
    (v) => [v.id],
  );
  if (wait && d.status === "failed") throw new CliError(`delivery ${d.id} failed: ${d.last_error ?? "no 2xx answer"}`, EXIT.error, "delivery_failed");
  if (wait && d.status === "pending")
    throw new CliError(`delivery ${d.id} still pending after ${WAIT_MS / 1000} s (is a worker or serve running?)`, EXIT.error, "delivery_pending");
}

const WAIT_FLAG = { flag: "--wait", type: "boolean", help: "wait for the outcome (exit 1 if it fails)" } as const;

/** `resend` and `redeliver`: the same two flags. */
const REPLAY_FLAGS = defineFlags({
  to: { flag: "--to <url>", type: "string", help: "send it to this URL instead of its own" },
  wait: WAIT_FLAG,
});

const TRIGGER_FLAGS = defineFlags({
  to: { flag: "--to <url>", type: "string", required: true, help: "where to send it (the URL `mediagen listen` prints, or your app's)" },
  status: {
    flag: "--status <status>",
    type: "string",
    to: (value: string, flag: string): "completed" | "failed" => {
      if (value !== "completed" && value !== "failed") throw flagError(flag, `completed or failed, got "${value}"`);
      return value;
    },
    help: "completed (default) or failed",
  },
  code: { flag: "--code <code>", type: "string", help: "the failure's code (with --status failed)" },
  data: { flag: "--data <file>", type: "string", help: "a JSON object laid over the sample body (ids, result fields…)" },
  space: { flag: "--space <space_id>", type: "string", help: "record the delivery under this space" },
  wait: WAIT_FLAG,
});

export function registerWebhookReplay(webhooks: Command, get: Getter): void {
  const resend = REPLAY_FLAGS.addTo(
    webhooks
      .command("resend")
      .description("Send a recorded delivery again (same body, same webhook-id: a repeat; `redeliver` sends it as a new one)")
      .argument("<delivery>", "the delivery's id (whd_…, from `mediagen local webhooks`)"),
  ).action(async (id: string, opts: FlagInput<typeof REPLAY_FLAGS>, cmd: Command) => {
    const ctx = get(cmd);
    const instance = await ctx.localInstance();
    instance.resendWebhook(id, opts.to);
    report(ctx, await settle(ctx, id, opts.wait === true), opts.wait === true);
  });
  examples(resend, [
    "mediagen local webhooks resend whd_65f0c2a1b3e4d5f6a7b8c9d0 --wait",
    "mediagen local webhooks resend whd_65f0c2a1b3e4d5f6a7b8c9d0 --to http://127.0.0.1:4242/",
  ]);

  const redeliver = REPLAY_FLAGS.addTo(
    webhooks
      .command("redeliver")
      .description("Send a recorded delivery's body as a new delivery (a new id and webhook-id: a new event to the receiver, not a repeat)")
      .argument("<delivery>", "the delivery's id (whd_…, from `mediagen local webhooks`)"),
  ).action(async (id: string, opts: FlagInput<typeof REPLAY_FLAGS>, cmd: Command) => {
    const ctx = get(cmd);
    const instance = await ctx.localInstance();
    const fresh = instance.redeliverWebhook(id, opts.to);
    report(ctx, await settle(ctx, fresh, opts.wait === true), opts.wait === true);
  });
  examples(redeliver, ["mediagen local webhooks redeliver whd_65f0c2a1b3e4d5f6a7b8c9d0 --wait"]);

  const trigger = TRIGGER_FLAGS.addTo(
    webhooks.command("trigger").description("Send a sample delivery of a task, as its job would when it ends").argument("<task>", TASKS),
  ).action(async (task: string, raw: FlagInput<typeof TRIGGER_FLAGS>, cmd: Command) => {
    const ctx = get(cmd);
    const opts = TRIGGER_FLAGS.values(raw);
    const data = opts.data !== undefined ? readData(opts.data) : undefined;
    const instance = await ctx.localInstance();
    const id = instance.triggerWebhook(task, {
      to: opts.to!,
      ...(opts.status ? { status: opts.status } : {}),
      ...(opts.code ? { code: opts.code } : {}),
      ...(data ? { data } : {}),
      ...(opts.space ? { spaceId: opts.space } : {}),
    });
    report(ctx, await settle(ctx, id, opts.wait === true), opts.wait === true);
  });
  examples(trigger, [
    "mediagen local webhooks trigger video_generate --to http://127.0.0.1:4242/ --wait",
    "mediagen local webhooks trigger asset_generation --status failed --to http://127.0.0.1:3000/hooks",
    "mediagen local webhooks trigger video_export --data export.json --to http://127.0.0.1:3000/hooks",
  ]);
}
