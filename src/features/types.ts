/**
 * The commands a feature (one resource of the service) adds to the CLI. `src/features/index.ts` lists
 * them in the order of the feature list (`src/features/routes.ts`). A manifest is light: it names the
 * feature's commands and how to load them, and loads nothing itself (the CLI reads it on every start).
 * The emulator's side of a feature is in `src/features/emulators.ts`.
 */
import type { CommandModule } from "../cli/command-context.js";

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

export interface FeatureManifest {
  name: string;
  commands: readonly CommandEntry[];
}
