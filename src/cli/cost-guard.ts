/**
 * Cost guards of the start commands: `--max-credits N` refuses a start that would cost more (exit
 * 2, nothing started), and on a terminal a start above MEDIAGEN_CONFIRM_ABOVE credits (default 50)
 * asks first (`--yes` skips the question). Off a terminal, or with `--no-input` or CI, nothing is
 * ever asked: the start goes ahead unless --max-credits stops it.
 */
import readline from "node:readline";
import { readEnv } from "../config/env.js";
import type { CliContext } from "./context.js";
import { CliError, EXIT } from "./types.js";
import { creditsText } from "./credits-note.js";

export interface CostCheck {
  /** Credits the start will debit; null when it cannot be known before starting. */
  price: number | null;
  /** What would be started, for the question and the refusal: "2 generations of vidA-3". */
  what: string;
  /** Why the price is unknown (said when --max-credits needs it). */
  unknownBecause?: string;
  maxCredits?: number;
  yes?: boolean;
}

/** The confirmation threshold in credits (Infinity: never ask). */
export function confirmAbove(ctx: CliContext): number {
  return readEnv("MEDIAGEN_CONFIRM_ABOVE", ctx.env);
}

/** Whether a command must know its price before starting: a guard or a question may need it. */
export function needsPrice(ctx: CliContext, o: { maxCredits?: number; yes?: boolean }): boolean {
  return o.maxCredits !== undefined || (!o.yes && ctx.io.canPrompt && Number.isFinite(confirmAbove(ctx)));
}

/** One line from stdin after `question` on stderr: true for y/yes. Ctrl-C is exit 130. */
async function askYes(ctx: CliContext, question: string): Promise<boolean> {
  ctx.io.stderr.write(question);
  const rl = readline.createInterface({ input: ctx.io.stdin, terminal: false });
  let off: () => void = () => {};
  try {
    const answer = await new Promise<string | null>((resolve) => {
      rl.once("line", (l) => resolve(l));
      rl.once("close", () => resolve(""));
      off = ctx.onInterrupt(() => resolve(null));
    });
    if (answer === null) throw new CliError("Interrupted at the prompt; nothing was started.", EXIT.interrupted, "interrupted");
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    off();
    rl.close();
  }
}

/** Refuses (exit 2) or asks, as the module comment says; returns when the start may go ahead. */
export async function guardCost(ctx: CliContext, c: CostCheck): Promise<void> {
  if (c.maxCredits !== undefined) {
    if (c.price === null) {
      throw new CliError(
        `--max-credits: the price of ${c.what} is not known before it starts (${c.unknownBecause ?? "the service prices it when it starts"}); nothing was started`,
        EXIT.usage,
        "price_unknown",
        "--max-credits",
      );
    }
    if (c.price > c.maxCredits) {
      throw new CliError(
        `--max-credits: ${c.what} would cost ${creditsText(c.price)}, more than ${creditsText(c.maxCredits)}; nothing was started`,
        EXIT.usage,
        "over_max_credits",
        "--max-credits",
      );
    }
  }
  if (c.yes || c.price === null || !ctx.io.canPrompt) return;
  const above = confirmAbove(ctx);
  if (!(c.price > above)) return;
  const ok = await askYes(ctx, `Start ${c.what} for ${creditsText(c.price)}? (more than ${creditsText(above)}; --yes skips this) [y/N] `);
  if (!ok) throw new CliError("Not started: nothing was debited.", EXIT.error, "cancelled");
}
