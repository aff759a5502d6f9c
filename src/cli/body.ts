/** `--body file.json` / `--body -`: a whole request body from a file or stdin. */
import fs from "node:fs";
import { BODY_MAX_BYTES } from "../contract/limits.js";
import { CliError, EXIT } from "./types.js";
import type { FrameIO } from "./io.js";

/**
 * Bodies are read up to the service's limit and no further: `--body /dev/zero` (or a pipe that never
 * ends) is refused after 1 MiB instead of filling memory. The same limit, whatever the target.
 */
function tooLarge(from: string, flag = "--body"): CliError {
  return new CliError(
    `${flag}: ${from} is larger than ${BODY_MAX_BYTES} bytes (1 MiB), the largest request body the service accepts`,
    EXIT.usage,
    "payload_too_large",
    flag,
  );
}

/**
 * What becomes a request body elsewhere (a plan file: `--plan`, `plan validate|show|price`), read
 * within the same limit before anything parses it: a 288 MB plan once took 53 s and 2.9 GB of memory
 * to be told it was too long. `-` is stdin.
 */
export async function readWithinBodyLimit(fileOrDash: string, io: Pick<FrameIO, "stdin">, flag: string): Promise<string> {
  try {
    return fileOrDash === "-" ? await readStdin(io, flag) : readFileBounded(fileOrDash, flag);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`${flag}: cannot read ${fileOrDash}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.usage, "usage_error", flag);
  }
}

async function readStdin(io: Pick<FrameIO, "stdin">, flag = "--body"): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early ends the stream: nothing more is read.
  for await (const chunk of io.stdin) {
    const b = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > BODY_MAX_BYTES) throw tooLarge("stdin", flag);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Reads at most BODY_MAX_BYTES + 1 bytes: enough to know the file is too large, whatever it is (a device, a FIFO). */
function readFileBounded(file: string, flag = "--body"): string {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(BODY_MAX_BYTES + 1);
    let size = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, size, buf.length - size, null);
      if (n === 0) break;
      size += n;
      if (size > BODY_MAX_BYTES) throw tooLarge(file, flag);
    }
    return buf.subarray(0, size).toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
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
      text = readFileBounded(pathOrDash);
    } catch (e) {
      if (e instanceof CliError) throw e;
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

/**
 * `--set key=value` (repeatable): one field of the request body, for fields no flag has (a field the
 * service's docs name later, one the spec leaves open). The value is JSON when it parses as JSON
 * (`--set animate_image_max=3`, `--set 'enable={"music":true}'`), else the text itself; a dotted key
 * sets a field of an object (`--set enable.music=true`), keeping its other fields. Applied over
 * `--body` and the flags. Whether the body may carry the field is the request's check (an open body
 * passes it, with a notice: `unknownFieldsNotice`).
 */
export function applySets(body: Record<string, unknown>, sets: readonly string[] | undefined, flag = "--set"): Record<string, unknown> {
  if (!sets?.length) return body;
  const out = { ...body };
  for (const item of sets) {
    const eq = item.indexOf("=");
    const key = eq > 0 ? item.slice(0, eq).trim() : "";
    const path = key.split(".");
    if (eq <= 0 || path.some((p) => p === "")) {
      throw new CliError(`${flag}: expected key=value (a dotted key sets a field of an object: enable.music=true), got "${item}"`, EXIT.usage, "usage_error", flag);
    }
    setPath(out, path, setValue(item.slice(eq + 1)));
  }
  return out;
}

/** JSON where the text parses as JSON (true, 12, null, {"a":1}, "quoted"), else the text itself. */
function setValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * Sets `path` to `value` in `body`, copying the objects on the way (the caller's nested objects are
 * left as they were). Fields are defined, never assigned, so a key such as `__proto__` is an ordinary
 * field and never reaches a prototype.
 */
function setPath(body: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const define = (o: Record<string, unknown>, k: string, v: unknown) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  let at = body;
  for (const p of path.slice(0, -1)) {
    const next = Object.hasOwn(at, p) ? at[p] : undefined;
    const obj = next && typeof next === "object" && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
    define(at, p, obj);
    at = obj;
  }
  define(at, path[path.length - 1]!, value);
}

/**
 * The one stderr line for keys of an open body the contract does not know (`--body`, `--set`): they
 * are sent as given, and the service decides what they do. Each is named, with the field it may have
 * been meant for. Returns the line, or undefined when every key is known.
 */
export async function unknownFieldsNotice(op: string, body: Record<string, unknown>): Promise<string | undefined> {
  const { requestContract } = await import("../features/request-check.js");
  const { knownKeys } = await import("../contract/request-check.js");
  const { didYouMean } = await import("../contract/did-you-mean.js");
  const contract = await requestContract(op);
  if (!contract) return undefined;
  const top = knownKeys(contract.schema, []);
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (!top.includes(key)) {
      unknown.push(`${key}${didYouMean(key, top)}`);
      continue;
    }
    const inner = value && typeof value === "object" && !Array.isArray(value) ? knownKeys(contract.schema, [key]) : [];
    if (!inner.length) continue;
    for (const k of Object.keys(value as object)) if (!inner.includes(k)) unknown.push(`${key}.${k}${didYouMean(k, inner)}`);
  }
  if (!unknown.length) return undefined;
  return `Sending ${unknown.join(", ")} as given: not ${unknown.length === 1 ? "a field" : "fields"} mediagen knows for this request; the service decides what ${unknown.length === 1 ? "it does" : "they do"}.`;
}
