/**
 * Errors of the media layer. Each carries enough to act on (what is missing, what failed, the
 * tool's last stderr lines) and nothing secret: inputs are local paths we chose or the caller gave.
 */

/** A required tool (ffmpeg, ffprobe, a TTS) is missing or does not run. */
export class MediaToolError extends Error {
  override readonly name = "MediaToolError";
  constructor(
    message: string,
    readonly missing: string[],
  ) {
    super(message);
  }
}

/** The caller passed something we cannot render (sizes, durations, voices, missing inputs). */
export class MediaInputError extends Error {
  override readonly name = "MediaInputError";
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** A tool ran and failed, was cancelled, or produced output that does not match the request. */
export class RenderError extends Error {
  override readonly name = "RenderError";
  readonly tool: string;
  readonly exitCode: number | null;
  readonly stderrTail: string;
  readonly aborted: boolean;
  constructor(message: string, o: { tool: string; exitCode?: number | null; stderrTail?: string; aborted?: boolean }) {
    super(o.stderrTail ? `${message}\n${o.stderrTail}` : message);
    this.tool = o.tool;
    this.exitCode = o.exitCode ?? null;
    this.stderrTail = o.stderrTail ?? "";
    this.aborted = o.aborted ?? false;
  }
}

export type MediaFetchReason = "not_found" | "too_large" | "timeout" | "http_error" | "unsupported" | "unreachable";

/** A reference/media URL or path could not be turned into a local file. */
export class MediaFetchError extends Error {
  override readonly name = "MediaFetchError";
  constructor(
    message: string,
    readonly reason: MediaFetchReason,
    readonly status?: number,
  ) {
    super(message);
  }
}
