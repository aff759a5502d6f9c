/**
 * Every environment variable mediagen reads, with what it does and how its text is read. Code reads
 * a variable only through `readEnv` (or from an injected environment record, by a name declared
 * here), so `mediagen help environment`, docs/cli.md and the code cannot drift apart: the test in
 * test/unit/config-env.test.ts holds all three to this table. This module imports nothing, so every
 * layer (the media layer included) may read through it without pulling anything else in.
 */

export type Env = Record<string, string | undefined>;

/** Who reads the variable: the command-line frame, the hosted client, the local instance, the media layer. */
export type EnvArea = "cli" | "hosted" | "local" | "media";

interface Variable<T> {
  readonly description: string;
  readonly area: EnvArea;
  /** `raw` is undefined when the variable is not set; the result is what the code acts on. */
  readonly parse: (raw: string | undefined, name: string) => T;
}

/** A variable that holds a value that is not valid (e.g. a port that is not a number). */
export class InvalidEnvError extends Error {
  override readonly name = "InvalidEnvError";
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable} ${message}`);
  }
}

/** Set and not blank: blank counts as unset, so `VAR= mediagen …` undoes an exported value. */
const text = (raw: string | undefined): string | undefined => (raw !== undefined && raw.trim() !== "" ? raw : undefined);
/** Set and not empty (blank but not empty is a value, as a path may be). */
const nonEmpty = (raw: string | undefined): string | undefined => (raw !== undefined && raw !== "" ? raw : undefined);
/** As set, even empty: for variables whose mere presence matters (proxies, FORCE_COLOR). */
const asSet = (raw: string | undefined): string | undefined => raw;
/** Anything but unset, empty, `0` or `false` (any case) turns it on. */
const flag = (raw: string | undefined): boolean => raw !== undefined && raw !== "" && raw !== "0" && raw.toLowerCase() !== "false";
/** A positive number (of milliseconds); anything else leaves the default. */
const positiveNumber = (raw: string | undefined): number | undefined => {
  const n = Number(raw);
  return n > 0 ? n : undefined;
};

/** A positive integer; anything else set is an error (the user asked for something we cannot do). */
function positiveInteger(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1) throw new InvalidEnvError(name, `must be a positive integer, got "${raw}"`);
  return Number(raw);
}

/**
 * A length of time: seconds (`90`, `2.5`) or with a unit (`1500ms`, `90s`, `2m`), in ms; must be
 * positive. Set to anything else is an error.
 */
function positiveDuration(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(raw.trim().toLowerCase());
  const ms = m ? Math.round(Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "m" ? 60_000 : 1000)) : NaN;
  if (!(ms > 0)) throw new InvalidEnvError(name, `must be a positive number of seconds (or 1500ms, 90s, 2m), got "${raw}"`);
  return ms;
}

/** A poll interval: a positive duration (as above) of at least 100 ms. */
function pollInterval(raw: string | undefined, name: string): number | undefined {
  const ms = positiveDuration(raw, name);
  if (ms !== undefined && ms < 100) throw new InvalidEnvError(name, `must be at least 100ms, got "${raw}"`);
  return ms;
}

function variable<T>(area: EnvArea, description: string, parse: (raw: string | undefined, name: string) => T): Variable<T> {
  return { area, description, parse };
}

export const ENV_VARS = {
  MEDIAGEN_HOME: variable(
    "cli",
    "where all state lives (config.json, credentials.json, cache/, local/); default $XDG_DATA_HOME/mediagen or ~/.local/share/mediagen (Linux), ~/Library/Application Support/mediagen (macOS), %APPDATA%\\mediagen (Windows)",
    text,
  ),
  MEDIAGEN_TARGET: variable("cli", "target to talk to: local or hosted (beats the profile's setting; --target beats it)", text),
  MEDIAGEN_BASE_URL: variable("cli", "base URL of the hosted target (beats the profile's setting; --base-url beats it)", text),
  MEDIAGEN_API_KEY: variable("cli", "API key to use; beats the key stored for the profile", (raw) => raw?.trim() || undefined),
  MEDIAGEN_PROFILE: variable("cli", "profile to use (default: default; --profile beats it)", text),
  MEDIAGEN_WEBHOOK_SECRET: variable(
    "cli",
    "signing secret (whsec_…) that `mediagen listen` and --webhook-listen check Standard Webhooks signatures with (--secret beats it; on the local target the instance's own secret is the default)",
    (raw) => raw?.trim() || undefined,
  ),
  XDG_DATA_HOME: variable("cli", "base of the default MEDIAGEN_HOME on Linux and other Unixes, when it is an absolute path", text),
  APPDATA: variable("cli", "base of the default MEDIAGEN_HOME on Windows", nonEmpty),
  NO_COLOR: variable("cli", "any non-empty value turns colour off (no-color.org); beats FORCE_COLOR", (raw) => raw !== undefined && raw !== ""),
  FORCE_COLOR: variable("cli", "turns colour on even off a terminal (empty or 1/true: on; 0/false: off)", (raw) =>
    raw === undefined ? undefined : flag(raw) || raw === "",
  ),
  TERM: variable("cli", "dumb: no colour, no spinner; xterm-kitty (or xterm-ghostty): --show draws pictures with the kitty graphics protocol", asSet),
  TERM_PROGRAM: variable("cli", "iTerm.app or WezTerm: --show draws pictures as iTerm2 inline images; ghostty: with the kitty protocol", asSet),
  LC_TERMINAL: variable("cli", "iTerm2 (set by iTerm2, also over ssh): --show draws pictures as iTerm2 inline images", asSet),
  KITTY_WINDOW_ID: variable("cli", "set by kitty: --show draws pictures with the kitty graphics protocol", asSet),
  TMUX: variable("cli", "set inside tmux, which does not pass pictures on: --show draws nothing", asSet),
  DISPLAY: variable(
    "cli",
    "set by an X desktop session: `plan preview` offers to open the preview in a player (without it, or WAYLAND_DISPLAY, on Linux it says where the file is)",
    asSet,
  ),
  WAYLAND_DISPLAY: variable("cli", "set by a Wayland desktop session: as DISPLAY", asSet),
  COLUMNS: variable("cli", "width of human tables when the terminal does not report one", (raw) => {
    const n = Number(raw);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  }),
  CI: variable("cli", "set (not 0/false): never prompt, no spinner", flag),
  MEDIAGEN_REQUEST_TIMEOUT: variable(
    "hosted",
    "seconds one request to the hosted service may take, its retries included (default 60; --request-timeout beats it; 90s, 2m also work)",
    positiveDuration,
  ),
  MEDIAGEN_POLL_INTERVAL: variable(
    "cli",
    "how often watch modes, batch and MCP waits poll a job (default: the spec's schedule for the job, faster on the local target; at least 100ms; --interval beats it)",
    pollInterval,
  ),
  MEDIAGEN_CONFIRM_ABOVE: variable(
    "cli",
    "on a terminal, a start that costs more than this many credits asks for confirmation first (default 50; off: never ask); never asked off a terminal",
    (raw, name) => {
      if (raw === undefined || raw.trim() === "") return 50;
      if (raw.trim().toLowerCase() === "off") return Infinity;
      const n = Number(raw.trim());
      if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(n)) throw new InvalidEnvError(name, `must be a number of credits or off, got "${raw}"`);
      return n;
    },
  ),
  HTTPS_PROXY: variable("hosted", "proxy for an https:// base URL (https_proxy, in lower case, is looked at first)", asSet),
  https_proxy: variable("hosted", "as HTTPS_PROXY, and looked at first", asSet),
  HTTP_PROXY: variable("hosted", "proxy for an http:// base URL (http_proxy, in lower case, is looked at first)", asSet),
  http_proxy: variable("hosted", "as HTTP_PROXY, and looked at first", asSet),
  NO_PROXY: variable("hosted", "hosts reached without a proxy (comma or space separated; * for all); this machine always is", asSet),
  no_proxy: variable("hosted", "as NO_PROXY, and looked at first", asSet),
  MEDIAGEN_DEBUG: variable("local", "any non-empty value: the local instance prints why requests and background jobs failed on stderr", (raw) => !!raw),
  MEDIAGEN_SQLITE_DRIVER: variable(
    "local",
    "node or better: the SQLite driver of the local instance (default: node:sqlite where Node has it, 22.16+ and 24+; else better-sqlite3)",
    (raw, name) => {
      const v = text(raw)?.trim().toLowerCase();
      if (v === undefined) return undefined;
      if (v !== "node" && v !== "better") throw new InvalidEnvError(name, `must be node or better, got "${raw}"`);
      return v as "node" | "better";
    },
  ),
  MEDIAGEN_LOCAL_LLM_URL: variable(
    "local",
    "an OpenAI-compatible chat endpoint (llama.cpp server, Ollama, vLLM…) the local instance asks to write scripts; unset: the extractive writer",
    text,
  ),
  MEDIAGEN_LOCAL_LLM_MODEL: variable("local", "the `model` sent to MEDIAGEN_LOCAL_LLM_URL (optional)", text),
  MEDIAGEN_LOCAL_LLM_TIMEOUT_MS: variable("local", "how long the local model may take to answer before the extractive writer is used (default 30000)", positiveNumber),
  MEDIAGEN_WORKER_IDLE_MS: variable("local", "how long the background worker waits with nothing to do before it exits (default 15000)", positiveNumber),
  MEDIAGEN_WORKER_POLL_MS: variable("local", "how often a worker looks at the job queue when nothing woke it (default 200)", positiveNumber),
  MEDIAGEN_LOCAL_RATE_LIMIT: variable(
    "local",
    "requests per window per space the local instance allows, served or in process (default 100; not a positive integer: a usage error)",
    positiveInteger,
  ),
  MEDIAGEN_LOCAL_RATE_WINDOW_MS: variable(
    "local",
    "length of the local instance's rate-limit window in milliseconds, served or in process (default 60000)",
    positiveInteger,
  ),
  MEDIAGEN_FFMPEG: variable("media", "ffmpeg binary to use instead of the one on PATH or the bundled one", nonEmpty),
  MEDIAGEN_FFPROBE: variable("media", "ffprobe binary to use instead of the one on PATH or the bundled one", nonEmpty),
  MEDIAGEN_ESPEAK: variable("media", "espeak-ng binary to use (no fallback to the bundled WASM build when it fails)", nonEmpty),
  MEDIAGEN_FONT: variable("media", "font file for text in renders, tried before the bundled DejaVu Sans", nonEmpty),
  MEDIAGEN_MEDIA_FALLBACK: variable("media", "set (not 0/false): skip the tools on PATH and use the bundled ones", flag),
  MEDIAGEN_MEDIA_KEEP: variable("media", "1: keep each render's work dir (graph scripts, speech) and print where it is", (raw) => raw === "1"),
  MEDIAGEN_MEDIA_TRACE: variable("media", "any value: print each tool's run time on stderr; args: also its arguments", (raw) =>
    raw ? (raw === "args" ? ("args" as const) : ("times" as const)) : undefined,
  ),
  PATH: variable("media", "where ffmpeg, ffprobe and espeak-ng are looked for", (raw) => raw ?? ""),
  PATHEXT: variable("media", "executable extensions tried on PATH (Windows)", (raw) => (raw ?? ".EXE;.CMD;.BAT").split(";")),
} satisfies Record<string, Variable<unknown>>;

export type EnvName = keyof typeof ENV_VARS;
export type EnvValue<N extends EnvName> = ReturnType<(typeof ENV_VARS)[N]["parse"]>;

/** The variable `name` as the code acts on it, from `env` (default: this process's environment). */
export function readEnv<N extends EnvName>(name: N, env: Env = process.env): EnvValue<N> {
  return ENV_VARS[name].parse(env[name], name) as EnvValue<N>;
}

/** The table `mediagen help environment` prints, in declaration order. */
export function describeEnv(): Array<{ name: EnvName; area: EnvArea; description: string }> {
  return (Object.keys(ENV_VARS) as EnvName[]).map((name) => ({ name, area: ENV_VARS[name].area, description: ENV_VARS[name].description }));
}
