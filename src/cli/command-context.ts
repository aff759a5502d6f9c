/**
 * What a command gets from the frame: the context (src/cli/context.ts implements it) and the
 * agreement a command group keeps with the registry. Commands are typed against this interface, not
 * the class, so a command module never imports the context's own module (which is the door to the
 * local target) and never needs a cast to reach what the frame gives it.
 */
import type { Command } from "commander";
import type { Target } from "../engine/engine.js";
import type { LocalInstance } from "../features/local.js";
import type { ResolvedSettings } from "../config/profiles.js";
import type { Env } from "../config/paths.js";
import type { HttpClientOptions } from "../hosted/client.js";
import type { Context, ResolvedConfig, WaitOptions } from "./types.js";
import type { FrameIO } from "./io.js";
import type { Trace } from "./debug.js";
import type { Runtime, InterruptOptions } from "./runtime.js";
import type { Explain } from "./errors.js";
import type { JobStart, JobUpdate } from "./journal.js";
import type { MultiWaitSpec, WaitOutcome } from "./wait.js";
import type { SaveOptions } from "./download.js";

export interface Resolution {
  config: ResolvedConfig;
  settings: ResolvedSettings;
  /** Never printed; only handed to the engine. */
  key: string | undefined;
}

export interface CommandContext extends Context {
  readonly io: FrameIO;
  readonly env: Env;
  readonly version: string;
  /** Ctrl-C, the clock and an injected engine (src/cli/runtime.ts). */
  readonly runtime: Runtime;
  readonly trace: Trace | undefined;
  /** The home of all state (config, credentials, the local instance). */
  readonly home: string;
  /** The running command was given `--show`: every file it saves is drawn in the terminal. */
  showPictures: boolean;
  /** Talk to this target (and base URL, profile) unless the command line names one; only before the engine is first used. */
  useTarget(t: { target: Target; baseUrl?: string | null; profile?: string }): void;
  /** Settings and key, resolved once: flag > env > profile > default. */
  resolve(): Resolution;
  requestTimeoutMs(): number;
  profileName(): string;
  /** The local instance (opened on first use, whatever the target). */
  localInstance(): Promise<LocalInstance>;
  onInterrupt(handler: () => void, opts?: InterruptOptions): () => void;
  hostedOptions(): HttpClientOptions;
  explainWith(flagFor: (field: string) => string | undefined, body?: Record<string, unknown>): void;
  localSpace(): Promise<{ id: string; name: string; plan: string; credits: number } | undefined>;
  explain(err: unknown): Promise<Explain>;
  recordJobs(jobs: ReadonlyArray<Omit<JobStart, "target" | "base_url" | "profile">>): Promise<void>;
  recordStarted(op: string, input: Record<string, unknown>, res: unknown): Promise<void>;
  recordUpdates(updates: ReadonlyArray<Omit<JobUpdate, "target" | "kind"> & { kind?: JobUpdate["kind"] }>): Promise<void>;
  pollInterval(): number | undefined;
  withPollInterval(opts: WaitOptions): WaitOptions;
  waitAll<T>(spec: MultiWaitSpec<T>, opts: WaitOptions, interrupt: AbortSignal): Promise<WaitOutcome<T>>;
  /** Saves a media URL into `dir` as `name` (see src/cli/download.ts); returns the final path. */
  save(url: string, dir: string, name: string, opts?: SaveOptions): Promise<string>;
  showPicture(file: string): Promise<boolean>;
  close(): Promise<void>;
}

export type ContextGetter = (cmd: Command) => CommandContext;

/**
 * What the registry hands a command beside the context: loading every command group (help and
 * completion walk the whole tree). Handed in, so no command imports the registry that lists it.
 */
export interface CommandTree {
  loadAll(): Promise<void>;
}

/** A command group: registers its commands on the program. */
export interface CommandModule {
  register(program: Command, getContext: ContextGetter, tree: CommandTree): void;
}
