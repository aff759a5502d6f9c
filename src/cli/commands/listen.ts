/**
 * `mediagen listen`: a webhook receiver on 127.0.0.1 for watching deliveries arrive. Each POST is
 * answered 200 and printed (a readable line on a terminal; one JSON object per line on stdout
 * otherwise or with --json), optionally forwarded with its body and headers, and, when a signing
 * secret is known (--secret, MEDIAGEN_WEBHOOK_SECRET, or on the local target the instance's own
 * `local webhooks secret`), its Standard Webhooks signature is checked: a bad one is still answered
 * but marked `signature: "invalid"` with a warning on stderr. The URL is printed on stderr at start.
 * Ctrl-C stops it (exit 0); --count stops it after that many deliveries.
 */
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandModule } from "../command-context.js";
import { examples } from "../help-text.js";
import { defineFlags, type FlagInput } from "../flags.js";

const usage = (flag: string, message: string) => new CliError(`${flag}: ${message}`, EXIT.usage, "invalid_value", flag);

const LISTEN_FLAGS = defineFlags({
  port: {
    flag: "--port <n>",
    type: "string",
    default: "0",
    to: (v: string, flag: string) => {
      if (!/^\d+$/.test(v.trim()) || Number(v) > 65535) throw usage(flag, `expected a number from 0 to 65535, got "${v}"`);
      return Number(v);
    },
    help: "port on 127.0.0.1 (0 picks a free one)",
  },
  forwardTo: {
    flag: "--forward-to <url>",
    type: "string",
    to: (v: string, flag: string) => {
      let ok = false;
      try {
        ok = /^https?:$/.test(new URL(v).protocol);
      } catch {
        // not a URL
      }
      if (!ok) throw usage(flag, `expected an http(s) URL, got "${v}"`);
      return v;
    },
    help: "also POST each trusted delivery to this URL, with its body and headers (valid signature, or any without a secret; each webhook-id once)",
  },
  forwardInvalid: { flag: "--forward-invalid", type: "boolean", help: "with --forward-to: forward deliveries with a bad, missing or replayed signature too" },
  secret: { flag: "--secret <whsec>", type: "string", help: "signing secret to check signatures with (default: MEDIAGEN_WEBHOOK_SECRET, else the local instance's)" },
  count: {
    flag: "--count <n>",
    type: "string",
    to: (v: string, flag: string) => {
      if (!/^\d+$/.test(v.trim()) || Number(v) < 1) throw usage(flag, `expected a whole number of at least 1, got "${v}"`);
      return Number(v);
    },
    help: "stop after this many deliveries",
  },
});

export const command: CommandModule = {
  register(listen: Command, getContext) {
    LISTEN_FLAGS.addTo(listen).action(async (raw: FlagInput<typeof LISTEN_FLAGS>, cmd: Command) => {
      const ctx = getContext(cmd);
      const flags = LISTEN_FLAGS.values(raw);
      const port = flags.port!;
      const count = flags.count;
      const [{ startReceiver, describeEvent, isTrusted }, { webhookSecret }] = await Promise.all([import("../webhook-receiver.js"), import("../webhook-listen.js")]);
      const { secret, from } = await webhookSecret(ctx, flags.secret);
      const lines = ctx.opts.json || !ctx.io.isStdoutTTY;
      let seen = 0;
      let done: () => void = () => {};
      const finished = new Promise<void>((resolve) => (done = resolve));
      let receiver: Awaited<ReturnType<typeof startReceiver>>;
      try {
        receiver = await startReceiver({
          port,
          ...(secret ? { secret } : {}),
          ...(flags.forwardTo ? { forwardTo: flags.forwardTo } : {}),
          ...(flags.forwardInvalid ? { forwardInvalid: true } : {}),
          onEvent: (e) => {
            // Only trusted deliveries count towards --count: forged posts or replays cannot end the wait.
            if (isTrusted(e)) seen++;
            if (lines) ctx.io.out(JSON.stringify(e));
            else {
              ctx.io.out(describeEvent(e));
              if (e.body !== null && typeof e.body === "object") for (const l of JSON.stringify(e.body, null, 2).split("\n")) ctx.io.out(`  ${l}`);
            }
            if (e.signature === "invalid" || e.signature === "missing") {
              ctx.io.warn(`warning: delivery ${e.webhook_id ?? `#${seen + 1}`} has ${e.signature === "missing" ? "no" : "an invalid"} signature (${e.signature_error})`);
            }
            if (e.signature === "duplicate") ctx.io.warn(`warning: delivery ${e.webhook_id} is a duplicate (${e.signature_error})`);
            if (e.forwarded && (e.forwarded.status === null || e.forwarded.status >= 400)) {
              ctx.io.warn(`warning: forwarding to ${e.forwarded.url} failed: ${e.forwarded.status ?? e.forwarded.error}`);
            }
            if (count !== undefined && seen >= count) done();
          },
        });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "EADDRINUSE") throw new CliError(`127.0.0.1:${port} is already in use; choose another --port (0 picks a free one)`, EXIT.error, "address_in_use");
        throw e;
      }
      const stopped = ctx.runtime.signals.nextStop().then(() => undefined);
      const how = secret
        ? `signatures checked with ${from}`
        : "signatures not checked (no secret: --secret, MEDIAGEN_WEBHOOK_SECRET or `mediagen local webhooks secret set`)";
      if (ctx.opts.json) ctx.io.warn(JSON.stringify({ event: "listening", url: receiver.url, signatures: secret ? "checked" : "unchecked" }));
      else ctx.io.warn(`Listening for webhooks at ${receiver.url} (${how}${flags.forwardTo ? `; forwarding to ${flags.forwardTo}` : ""}). Ctrl-C stops.`);
      await Promise.race([finished, stopped]);
      await receiver.close();
      if (!ctx.opts.json) ctx.io.info(`Stopped after ${seen} deliver${seen === 1 ? "y" : "ies"}.`);
    });
    examples(listen, [
      "mediagen listen",
      "mediagen listen --port 4242 --forward-to http://localhost:3000/webhooks",
      'mediagen asset start --type image --model imgA-4 --prompt "a fox" --webhook-url http://127.0.0.1:4242/webhook',
      "mediagen listen --json --count 1 > delivery.json",
      'mediagen asset start --type image --model imgA-4 --prompt "a fox" --webhook-listen   # one run, no second terminal',
    ]);
  },
};
