import { EXIT } from "./types.js";

/** The exit-code table of `mediagen help exit-codes` and docs/exit-codes.md. */
export const EXIT_CODE_DOCS: ReadonlyArray<{ code: number; meaning: string }> = [
  { code: EXIT.ok, meaning: "success" },
  { code: EXIT.error, meaning: "error not covered below (internal, network, 5xx after retries, unexpected response body, ledger mismatch)" },
  { code: EXIT.usage, meaning: "usage or validation error (bad flags, bad file, missing input, 400 from the service)" },
  { code: EXIT.auth, meaning: "authentication or plan (401, 403, not logged in)" },
  { code: EXIT.notFound, meaning: "not found (404)" },
  { code: EXIT.credits, meaning: "insufficient credits (402)" },
  { code: EXIT.rateLimited, meaning: "rate limited after retries (429)" },
  { code: EXIT.jobFailed, meaning: "the watched job ended failed" },
  { code: EXIT.timeout, meaning: "wait timed out; the job may still finish" },
  { code: EXIT.interrupted, meaning: "interrupted (Ctrl-C); a watched job continues" },
];
