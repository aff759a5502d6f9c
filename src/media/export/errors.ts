/**
 * The export renderer fails with one of the spec's export job codes, and a message a user can act on:
 * what failed and the tool's own words (its stderr tail), with file paths cut to their base names so
 * no server path leaks into a job record.
 */
import { MediaToolError, RenderError } from "../errors.js";

export type ExportErrorCode = "EXPORT_FAILED" | "ENCODING_FAILED" | "FORMAT_CONVERSION_FAILED" | "STORAGE_FAILED";

export class ExportError extends Error {
  override readonly name = "ExportError";
  constructor(
    readonly code: ExportErrorCode,
    message: string,
    readonly o: { aborted?: boolean; cause?: unknown } = {},
  ) {
    super(message, o.cause === undefined ? undefined : { cause: o.cause });
  }
  get aborted(): boolean {
    return this.o.aborted ?? false;
  }
}

/** errno codes that mean the disk (space, quota, permissions, I/O), not the media, is the problem. */
const STORAGE_ERRNOS = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS", "EACCES", "EPERM", "EMFILE", "ENFILE", "EFBIG"]);
const STORAGE_STDERR = /No space left on device|Disk quota exceeded|Read-only file system|Input\/output error|File too large/i;

/**
 * Absolute paths in tool output, cut to their base names. A path starts after a line start, space,
 * quote, `=`, `:` or `(`, so ratios like `1/30` stay as they are.
 */
export function scrubPaths(text: string): string {
  return text.replace(
    /(^|[\s'"=:(])((?:[A-Za-z]:)?[\\/](?:[^\s'"\\/:,;]+[\\/])+)([^\s'"\\/:,;]*)/gm,
    (_m, pre: string, _dir: string, base: string) => `${pre}${base || "."}`,
  );
}

export function isStorageError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === "string" && STORAGE_ERRNOS.has(code)) return true;
  return e instanceof RenderError && STORAGE_STDERR.test(e.stderrTail);
}

/**
 * Any failure as an ExportError. `what` says which step failed ("rendering the video", "mixing the
 * audio"); a RenderError's stderr tail is kept (scrubbed), since it is usually the actual cause.
 */
export function toExportError(e: unknown, what: string): ExportError {
  if (e instanceof ExportError) return e;
  if (e instanceof RenderError && e.aborted) return new ExportError("EXPORT_FAILED", "export cancelled", { aborted: true, cause: e });
  if (isStorageError(e)) {
    const detail = e instanceof RenderError ? e.stderrTail : ((e as NodeJS.ErrnoException).code ?? "");
    return new ExportError("STORAGE_FAILED", scrubPaths(`${what}: cannot write the output (${tailOf(detail) || "disk error"})`), { cause: e });
  }
  if (e instanceof RenderError) {
    // "ffmpeg exited with code 1" / "ffmpeg was killed by SIGKILL", then what ffmpeg said.
    const how = e.message.split("\n")[0]!;
    const tail = tailOf(e.stderrTail);
    return new ExportError("ENCODING_FAILED", scrubPaths(`${what} failed: ${how}${tail ? `: ${tail}` : " (no message)"}`), { cause: e });
  }
  if (e instanceof MediaToolError) return new ExportError("EXPORT_FAILED", e.message, { cause: e });
  const msg = e instanceof Error ? e.message : String(e);
  return new ExportError("EXPORT_FAILED", scrubPaths(`${what} failed: ${msg}`), { cause: e });
}

/**
 * The useful end of a tool's stderr: its last lines, without ffmpeg's generic epilogue lines
 * ("Conversion failed!", "Error while filtering…") when something more specific precedes them.
 */
export function tailOf(stderr: string, lines = 4): string {
  const generic =
    /^(Conversion failed!|Error while (filtering|processing the decoded data)|Error (re)?initializing (filters|output stream)|Exiting normally|Failed to inject frame|Error while decoding stream)/i;
  const all = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const specific = all.filter((l) => !generic.test(l));
  const pick = (specific.length ? specific : all).slice(-lines);
  // "[mov,mp4,… @ 0x55…] moov atom not found" → "moov atom not found"; "file:x.mp4" → "x.mp4".
  return pick.map((l) => l.replace(/^\[[^\]]+ @ 0x[0-9a-f]+\]\s*/, "").replace(/(^|[\s'"])file:/g, "$1")).join(" | ");
}
