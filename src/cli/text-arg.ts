/**
 * A "file, `-` or text" flag (`generate --script`): `-` reads stdin, `@path` reads that file (and
 * says so when it is missing), an existing file is read, anything else is the text itself, except a
 * value that looks like a path and names no file (`scrpt.txt`): that is a typo more often than a
 * script, and speaking it would be charged, so it is a usage error (exit 2).
 */
import fs from "node:fs";
import { CliError, EXIT } from "./types.js";

/** One token with a path separator, or ending in a file extension (`notes.txt`, `./a`, `~/s.md`). */
export function looksLikePath(value: string): boolean {
  const v = value.trim();
  if (v === "" || /\s/.test(v)) return false;
  return /[\\/]/.test(v) || /^[^.]+(\.[^.]+)*\.[A-Za-z][A-Za-z0-9]{0,4}$/.test(v);
}

function readFile(path: string, flag: string): string {
  try {
    return fs.readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (code ?? (e as Error).message);
    throw new CliError(`${flag}: ${why}: ${path}`, EXIT.usage, "no_such_file", flag);
  }
}

function isFile(path: string): boolean {
  try {
    return fs.statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The text a "file, `-` or text" flag stands for; `readStdin` is called for `-` only. */
export async function fileOrText(value: string, flag: string, readStdin: () => Promise<string>): Promise<string> {
  if (value === "-") return readStdin();
  if (value.startsWith("@") && value.length > 1) return readFile(value.slice(1), flag);
  if (isFile(value)) return readFile(value, flag);
  if (looksLikePath(value)) {
    throw new CliError(
      `${flag}: no such file: ${value} (a file is read when it exists; write @${value} to say it is a file, or give the text itself with a space in it)`,
      EXIT.usage,
      "no_such_file",
      flag,
    );
  }
  return value;
}
