/**
 * The session's budget (--max-credits N): every start is priced before it is sent and refused when
 * the price would take the session past N, or when the price cannot be known. The price is reserved
 * while the start is in flight (two starts at once cannot both take the last credits), and replaced
 * by what the service says it debited once it answers; a start that fails gives its reservation back.
 * Amounts are kept in thousandths of a credit, as the ledger does.
 */
import { fromMilli, toMilli } from "../contract/credits.js";
import { creditsText } from "../cli/credits-note.js";
import type { Price } from "./price.js";

export class BudgetError extends Error {
  override readonly name = "BudgetError";
  constructor(
    message: string,
    readonly code: "over_max_credits" | "price_unknown",
    readonly details: { max_credits: number; spent: number; remaining: number; price: number | null },
  ) {
    super(message);
  }
}

export interface Reservation {
  /** The start went through: `debited` (the service's figure) replaces the reserved price. */
  settle(debited: number | undefined): void;
  /** The start failed: nothing was debited. */
  release(): void;
}

export class Budget {
  private spentMilli = 0;

  constructor(readonly maxCredits: number | undefined) {}

  get spent(): number {
    return fromMilli(this.spentMilli);
  }

  /** Credits left (undefined without a cap). */
  get remaining(): number | undefined {
    return this.maxCredits === undefined ? undefined : fromMilli(Math.max(0, toMilli(this.maxCredits) - this.spentMilli));
  }

  /** Reserves `price` for a start of `what`, or throws a BudgetError saying what is left. */
  reserve(what: string, price: Price): Reservation {
    if (this.maxCredits === undefined) {
      // No cap: still count what the session spends (reported by `price`).
      return this.hold(price.credits === null ? 0 : toMilli(price.credits));
    }
    const remaining = this.remaining!;
    const details = { max_credits: this.maxCredits, spent: this.spent, remaining, price: price.credits };
    if (price.credits === null) {
      throw new BudgetError(
        `--max-credits: the price of ${what} is not known before it starts (${price.basis}); nothing was started. Budget left: ${creditsText(remaining)} of ${creditsText(this.maxCredits)}.`,
        "price_unknown",
        details,
      );
    }
    const milli = toMilli(price.credits);
    if (this.spentMilli + milli > toMilli(this.maxCredits)) {
      throw new BudgetError(
        `--max-credits: ${what} would cost ${creditsText(price.credits)}, more than the ${creditsText(remaining)} left of this session's ${creditsText(this.maxCredits)}; nothing was started.`,
        "over_max_credits",
        details,
      );
    }
    return this.hold(milli);
  }

  private hold(milli: number): Reservation {
    this.spentMilli += milli;
    let open = true;
    return {
      settle: (debited) => {
        if (!open) return;
        open = false;
        if (debited !== undefined) this.spentMilli += toMilli(debited) - milli;
      },
      release: () => {
        if (!open) return;
        open = false;
        this.spentMilli -= milli;
      },
    };
  }
}
