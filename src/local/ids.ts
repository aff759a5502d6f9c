import crypto from "node:crypto";
import type { IdGen } from "./types.js";

export const randomIds: IdGen = {
  hex24: () => crypto.randomBytes(12).toString("hex"),
  prefixed: (prefix: string) => prefix + crypto.randomBytes(12).toString("hex"),
};

/** Deterministic ids for tests: 000…001, 000…002, … (24 hex characters). */
export function sequentialIds(start = 1): IdGen {
  let n = start;
  const next = () => (n++).toString(16).padStart(24, "0");
  return { hex24: next, prefixed: (prefix: string) => prefix + next() };
}
