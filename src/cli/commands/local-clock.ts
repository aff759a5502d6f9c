/**
 * `mediagen local clock advance|freeze|reset|show`: the local instance's own time (Stripe's test
 * clocks). Link expiry, rate windows, job timings and `created_at` follow it, in every process of the
 * instance (serve included). Local only: the hosted service's time is its own.
 */
import type { Command } from "commander";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";

type Getter = (cmd: Command) => CommandContext;

interface ClockState {
  offset_ms: number;
  frozen_at: number | null;
  now: string;
  real: string;
}

function describe(s: ClockState): string[] {
  const days = s.offset_ms / 86_400_000;
  const ahead =
    s.offset_ms === 0
      ? "on real time"
      : `${Math.abs(days) >= 1 ? `${days.toFixed(2)} days` : `${(s.offset_ms / 1000).toFixed(1)} s`} ${s.offset_ms > 0 ? "ahead" : "behind"}`;
  return [`${s.now}${s.frozen_at !== null ? " (frozen)" : ""}, ${ahead}`];
}

export function registerClock(local: Command, get: Getter): void {
  const clock = local.command("clock").description("Move the local instance's clock: link expiry, rate windows, job timings and created_at follow it");
  examples(clock, ["mediagen local clock advance 8d", "mediagen local clock freeze", "mediagen local clock reset", "mediagen local clock show --json"]);

  const act = (name: string, summary: string, run: (i: Awaited<ReturnType<CommandContext["localInstance"]>>, arg?: string) => ClockState, arg?: [string, string]) => {
    const c = clock.command(name).description(summary);
    if (arg) c.argument(arg[0], arg[1]);
    c.action(async (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      ctx.print(run(instance, arg ? (args[0] as string) : undefined), describe, (s) => [s.now]);
    });
    return c;
  };
  const advance = act("advance", "Move the clock forward (30s, 1m, 2h, 8d)", (i, d) => i.advanceClock(d!), ["<duration>", "how far: 500ms, 30s, 1m, 2h, 8d"]);
  examples(advance, ["mediagen local clock advance 8d   # export links (7 days) expire", "mediagen local clock advance 1m   # a new rate-limit window opens"]);
  examples(
    act("freeze", "Stop the clock at the time it reads now (advance still moves it)", (i) => i.freezeClock()),
    ["mediagen local clock freeze"],
  );
  examples(
    act("reset", "Back to the machine's time", (i) => i.resetClock()),
    ["mediagen local clock reset"],
  );
  examples(
    act("show", "The time the instance reads, and how far it is from the machine's", (i) => i.clockState()),
    ["mediagen local clock show --json"],
  );
}
