/** `--body file.json` / `--body -`: a whole request body from a file or stdin. */
import fs from "node:fs";
import { CliError, EXIT } from "./types.js";
import type { FrameIO } from "./io.js";

async function readStdin(io: Pick<FrameIO, "stdin">): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `inputAllowed` is false with --no-input or CI: then a terminal on stdin is a usage error, since
 * nobody is there to type. Otherwise a terminal gets a notice on stderr, so the wait for typing is
 * not a silent hang.
 */
export async function readJsonBody(
  pathOrDash: string,
  io: Pick<FrameIO, "stdin"> & Partial<Pick<FrameIO, "warn">>,
  inputAllowed: boolean,
): Promise<Record<string, unknown>> {
  let text: string;
  let from: string;
  if (pathOrDash === "-") {
    from = "stdin";
    if ((io.stdin as { isTTY?: boolean }).isTTY) {
      if (!inputAllowed) {
        throw new CliError("--body -: stdin is a terminal and input is off (--no-input or CI); pipe the JSON in", EXIT.usage, "usage_error", "--body");
      }
      io.warn?.("Reading the JSON body from stdin (end with Ctrl-D)…");
    }
    text = await readStdin(io);
  } else {
    from = pathOrDash;
    try {
      text = fs.readFileSync(pathOrDash, "utf8");
    } catch (e) {
      throw new CliError(`--body: cannot read ${pathOrDash}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.usage, "usage_error", "--body");
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new CliError(`--body: ${from} is not valid JSON (${(e as Error).message})`, EXIT.usage, "invalid_json", "--body");
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    throw new CliError(`--body: ${from} must hold a JSON object`, EXIT.usage, "invalid_json", "--body");
  }
  return data as Record<string, unknown>;
}
