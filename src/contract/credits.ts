/**
 * Credits are stored as integer thousandths ("millicredits") so arithmetic on 0.1-credit prices is
 * exact; they are shown as the spec's numbers.
 */
export const MILLI = 1000;

export function toMilli(credits: number): number {
  const m = Math.round(credits * MILLI);
  if (!Number.isSafeInteger(m)) throw new RangeError(`credit amount out of range: ${credits}`);
  return m;
}

export function fromMilli(milli: number): number {
  return milli / MILLI;
}

/** Formats a credit amount for people: up to three decimals, no trailing zeros. */
export function formatCredits(credits: number): string {
  return String(Math.round(credits * MILLI) / MILLI);
}
