/**
 * The command printed to resume a wait (timeout, Ctrl-C): it must run as pasted, so it carries the
 * global flags that chose the target and every word is quoted for a POSIX shell.
 */
import type { Target } from "../engine/engine.js";
import type { GlobalOptions } from "./types.js";

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One word as a POSIX shell reads it back: bare when safe, otherwise in single quotes. */
export function shellQuote(word: string): string {
  if (word !== "" && SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The global flags that select where a command runs, as they were given on the command line. */
export function globalFlagWords(opts: Pick<GlobalOptions, "profile" | "target" | "baseUrl">): string[] {
  const words: string[] = [];
  if (opts.profile !== undefined) words.push("--profile", opts.profile);
  if (opts.target !== undefined) words.push("--target", opts.target);
  if (opts.baseUrl !== undefined) words.push("--base-url", opts.baseUrl);
  return words;
}

/** `mediagen <global flags> <args…>`, quoted. */
export function resumeCommand(opts: Pick<GlobalOptions, "profile" | "target" | "baseUrl">, args: readonly string[]): string {
  return ["mediagen", ...globalFlagWords(opts), ...args].map(shellQuote).join(" ");
}

/**
 * A resume command a module wrote as text (`mediagen export status j1 --watch`): the global flags
 * go in after `mediagen`. The module's own words are left as written.
 */
export function withGlobalFlags(opts: Pick<GlobalOptions, "profile" | "target" | "baseUrl">, command: string): string {
  const flags = globalFlagWords(opts).map(shellQuote).join(" ");
  if (!flags || !command.startsWith("mediagen ")) return command;
  return `mediagen ${flags} ${command.slice("mediagen ".length)}`;
}

/**
 * The command that resumes a `generate --watch --export [--download …]` chain stopped while the
 * video was being made: the same flags on `generation status`, so the export follows (as the export
 * phase's own resume command does), not the wait alone. Global flags are added by the wait.
 */
export function chainResume(jobId: string, flags: { download?: string; force?: boolean; avatarModel?: string }): string {
  const words = ["mediagen", "generation", "status", jobId, "--watch", "--export"];
  if (flags.download !== undefined) words.push("--download", flags.download);
  if (flags.force) words.push("--force");
  if (flags.avatarModel !== undefined) words.push("--avatar-model", flags.avatarModel);
  return words.map(shellQuote).join(" ");
}

/**
 * The export this machine's history started from `videoId` and that may still give its MP4 (not
 * failed), latest first: a resumed chain follows it instead of paying for another.
 */
export async function exportOfVideo(home: string, videoId: string, target: Target): Promise<string | undefined> {
  const { readHistory } = await import("./journal.js");
  return readHistory(home).find((j) => j.kind === "export" && j.target === target && j.video_id === videoId && j.status !== "failed")?.id;
}
