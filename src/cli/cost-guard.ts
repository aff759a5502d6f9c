/**
 * Cost guards of the start commands: `--max-credits N` refuses a start that would cost more (exit
 * 2, nothing started), and on a terminal a start above MEDIAGEN_CONFIRM_ABOVE credits (default 50)
 * asks first (`--yes` skips the question). Off a terminal, or in CI, nothing is ever asked: the
 * start goes ahead unless --max-credits stops it. On a terminal with `--no-input`, a start that
 * would have asked is refused (exit 2) unless `--yes`: the user said not to ask, not to agree.
 *
 * `guardStart` is the whole guard of one start, from its life (src/features/lives.ts): `--dry-run`
 * (the free checks, then the price and its basis), `--max-credits` and the question, for every paid
 * start whichever command makes it.
 */
import readline from "node:readline";
import { readEnv } from "../config/env.js";
import type { CommandContext } from "./command-context.js";
import { CliError, EXIT } from "./types.js";
import { creditsText } from "./credits-note.js";
import { defineFlags } from "./flags.js";
import type { Command } from "commander";
import type { Engine, OpName } from "../engine/engine.js";
import type { Price } from "../features/life.js";

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
export function confirmAbove(ctx: CommandContext): number {
  return readEnv("MEDIAGEN_CONFIRM_ABOVE", ctx.env);
}

/** Whether a command must know its price before starting: a guard or a question may need it. */
export function needsPrice(ctx: CommandContext, o: { maxCredits?: number; yes?: boolean }): boolean {
  return o.maxCredits !== undefined || (!o.yes && (ctx.io.canPrompt || refusesToAsk(ctx)) && Number.isFinite(confirmAbove(ctx)));
}

/** A terminal where `--no-input` forbids the question the start would ask. */
function refusesToAsk(ctx: CommandContext): boolean {
  return ctx.opts.input === false && ctx.io.isStdoutTTY && (ctx.io.stdin as { isTTY?: boolean }).isTTY === true;
}

/** One line from stdin after `question` on stderr: true for y/yes. Ctrl-C is exit 130. */
async function askYes(ctx: CommandContext, question: string): Promise<boolean> {
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
export async function guardCost(ctx: CommandContext, c: CostCheck): Promise<void> {
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
  if (c.yes || c.price === null) return;
  const above = confirmAbove(ctx);
  if (!(c.price > above)) return;
  if (refusesToAsk(ctx)) {
    throw new CliError(
      `${c.what} would cost ${creditsText(c.price)} (more than ${creditsText(above)}), which needs a confirmation, and --no-input forbids asking; pass --yes to start it; nothing was started`,
      EXIT.usage,
      "confirmation_needed",
      "--yes",
    );
  }
  if (!ctx.io.canPrompt) return;
  const ok = await askYes(ctx, `Start ${c.what} for ${creditsText(c.price)}? (more than ${creditsText(above)}; --yes skips this) [y/N] `);
  if (!ok) throw new CliError("Not started: nothing was debited.", EXIT.error, "cancelled");
}

export interface StartGuardFlags {
  dryRun?: boolean;
  maxCredits?: number;
  yes?: boolean;
}

/** The three flags of every paid start, for `defineFlags` (src/cli/flags.ts). */
export const START_GUARD_FLAGS = {
  dryRun: { flag: "--dry-run", type: "boolean", help: "check the request and print its price and basis; nothing is started" },
  maxCredits: { flag: "--max-credits <n>", type: "number", help: "refuse to start (exit 2) if it would cost more than n credits, or its price cannot be known before" },
  yes: { flag: "-y, --yes", type: "boolean", help: "do not ask for confirmation on a terminal (see MEDIAGEN_CONFIRM_ABOVE)" },
} as const;

/** The three flags of every paid start, added on their own (before a command's other flags). */
export function addStartGuardOptions(cmd: Command): Command {
  return defineFlags(START_GUARD_FLAGS).addTo(cmd);
}

/** What `addStartGuardOptions` hands the action, checked. */
export function startGuardFrom(opts: { dryRun?: boolean; maxCredits?: string; yes?: boolean }): StartGuardFlags {
  return {
    ...(opts.dryRun ? { dryRun: true } : {}),
    ...(opts.yes ? { yes: true } : {}),
    ...(opts.maxCredits !== undefined ? { maxCredits: maxCreditsFrom(opts.maxCredits)! } : {}),
  };
}

/** `--max-credits` as commander hands it (a string), checked. */
export function maxCreditsFrom(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(n) || n < 0 || (typeof value === "string" && !/^\s*\d+(\.\d+)?\s*$/.test(value))) {
    throw new CliError(`--max-credits: expected 0 or more credits, got "${value}"`, EXIT.usage, "invalid_value", "--max-credits");
  }
  return n;
}

/**
 * The guard of one start of `op`, read from its life: with `--dry-run`, `check` runs (what can be
 * checked without spending) and the price and its basis are printed, and the answer is "dry-run"
 * (the command stops there); otherwise `--max-credits` and the question apply, and the answer is "go".
 */
export async function guardStart(
  ctx: CommandContext,
  engine: Engine,
  op: OpName,
  body: Record<string, unknown>,
  flags: StartGuardFlags,
  check?: () => Promise<void>,
): Promise<"dry-run" | "go"> {
  if (flags.maxCredits !== undefined && !(flags.maxCredits >= 0)) {
    throw new CliError("--max-credits: expected 0 or more credits", EXIT.usage, "invalid_value", "--max-credits");
  }
  const { lifeOf } = await import("../features/lives.js");
  const life = lifeOf(op);
  const what = life.what?.(body) ?? op;
  const guard = { ...(flags.maxCredits !== undefined ? { maxCredits: flags.maxCredits } : {}), ...(flags.yes ? { yes: true } : {}) };
  if (!flags.dryRun && !needsPrice(ctx, guard)) return "go";
  if (flags.dryRun && check) await check();
  const price = await priceWithHistory(ctx, engine, op, body);
  if (flags.dryRun) {
    ctx.print(
      { credits: price.credits, exact: price.exact, basis: price.basis },
      (p) => [p.credits === null ? `Not known before it starts: ${p.basis}.` : `${p.exact ? "" : "About "}${creditsText(p.credits)} for ${what}, from ${p.basis}.`],
      (p) => [p.credits === null ? "unknown" : String(p.credits)],
    );
    if (!ctx.opts.json) ctx.io.info("Dry run: nothing was started.");
    return "dry-run";
  }
  await guardCost(ctx, { ...guard, price: price.credits, what, unknownBecause: price.basis });
  return "go";
}

/** A start's price by its life; a video this machine made is priced in its own format (the history's). */
export async function priceWithHistory(ctx: CommandContext, engine: Engine, op: OpName, body: Record<string, unknown>): Promise<Price> {
  const { lifeOf } = await import("../features/lives.js");
  const rule = lifeOf(op).price;
  if (!rule) return { credits: 0, exact: true, basis: "nothing is debited" };
  const { videoFormatOf } = await import("./journal.js");
  const target = engine.target;
  return rule(body, {
    target,
    assetPricing: (b) => engine.assetPricing(b as never),
    videoFormat: (id) => {
      try {
        return videoFormatOf(ctx.home, id, target);
      } catch {
        return undefined; // an unreadable history knows nothing
      }
    },
  });
}
