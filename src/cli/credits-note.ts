/**
 * What a failed job did with its credits, in the words the end of a wait uses ("32 credits
 * refunded"). The spec refunds failed assets on both targets; the local instance refunds every
 * failed job (looks, generations); the hosted service does not say for looks and generations, so
 * the user is told where to look instead of a guess.
 */
import type { Target } from "../engine/engine.js";

export const creditsText = (n: number) => `${n} credit${n === 1 ? "" : "s"}`;

/**
 * `cost`: what the job was charged (undefined when this command does not know); `refunded`: whether
 * the target refunds this kind of failure for sure.
 */
export function refundNote(cost: number | undefined, refunded: boolean): string {
  if (cost === 0) return "nothing was charged";
  if (refunded) return cost === undefined ? "its credits were refunded" : `${creditsText(cost)} refunded`;
  const what = cost === undefined ? "its credits are" : `the ${creditsText(cost)} debited are`;
  return `the service does not say whether ${what} refunded: check the balance in your dashboard`;
}

/** The refund of a look or a generation: certain on the local instance only. */
export const refundedOn = (target: Target) => target === "local";
