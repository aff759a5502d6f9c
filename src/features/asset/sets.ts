/**
 * `--set key=value` (repeatable): one-off fields of a request body, for names the flags do not carry.
 * A dotted key reaches into an object (`model_settings.camera_fixed=true`). Values read as JSON where
 * they are JSON (true, 12, null, {"a":1}, "quoted"), else as the text given.
 *
 * A small local helper of the asset commands: the same shape as the shared `--set` of src/cli/body.ts
 * being written alongside, so the commands can switch to it when the two meet.
 */
import { CliError, EXIT } from "../../cli/types.js";

function readValue(text: string): unknown {
  const t = text.trim();
  if (t === "") return "";
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return text;
  }
}

/** Sets `key` (dotted) to `value` in `body`, creating objects on the way; keys are defined, never assigned through a prototype. */
function setPath(body: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split(".");
  let at = body;
  parts.forEach((part, i) => {
    if (part === "") throw new CliError(`--set: "${key}" has an empty name between its dots`, EXIT.usage, "usage_error", "--set");
    if (i === parts.length - 1) {
      Object.defineProperty(at, part, { value, enumerable: true, writable: true, configurable: true });
      return;
    }
    const next = Object.hasOwn(at, part) ? at[part] : undefined;
    const obj = next && typeof next === "object" && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
    Object.defineProperty(at, part, { value: obj, enumerable: true, writable: true, configurable: true });
    at = obj;
  });
}

/** The body with every `key=value` of `values` set in it (a new object; `body` is left as it was). */
export function applySets(body: Record<string, unknown>, values: readonly string[] | undefined): Record<string, unknown> {
  if (!values?.length) return body;
  const out = { ...body };
  for (const raw of values) {
    const i = raw.indexOf("=");
    if (i <= 0) throw new CliError(`--set: expected key=value, got "${raw}"`, EXIT.usage, "usage_error", "--set");
    setPath(out, raw.slice(0, i).trim(), readValue(raw.slice(i + 1)));
  }
  return out;
}

/** The top-level keys of `body` that `known` does not name, for the one stderr line that says they are passed as given. */
export function unnamedKeys(body: Record<string, unknown>, known: readonly string[]): string[] {
  return Object.keys(body).filter((k) => !known.includes(k));
}
