/**
 * What a feature (one resource of the service) declares. `src/features/index.ts` lists the features;
 * the operation table, the server's routes, the local dispatch, the job kinds, the migrations and the
 * command registry are all derived from that list. A manifest is light: it names the feature's
 * commands and how to load its local part, and loads nothing itself (the CLI reads
 * it on every start).
 */
import type { CommandModule } from "../cli/types.js";
import type { HandlerTable, JobKind } from "../local/types.js";

/** One top-level CLI command (a group such as `asset`, or a single command such as `serve`). */
export interface CommandEntry {
  name: string;
  /** The one-line description shown in `mediagen --help` and on the command itself. */
  summary: string;
  /** How `mediagen --help` shows the command when it has arguments or options, e.g. `serve [options]`. */
  term?: string;
  /** Other names the command answers to (`ls` for `history`). */
  aliases?: readonly string[];
  hidden?: boolean;
  load(): Promise<{ command: CommandModule }>;
}

/** A schema change of the local instance owned by a feature. */
export interface Migration {
  /** Global `PRAGMA user_version` this migration brings the schema to (1 is the local core). */
  version: number;
  sql: string;
}

/** What a feature adds to the local instance (./emulators.ts): its handlers and its job kinds. */
export interface LocalPart {
  handlers?: HandlerTable;
  jobKinds?: Record<string, JobKind>;
}

export interface FeatureManifest {
  name: string;
  commands: readonly CommandEntry[];
}
