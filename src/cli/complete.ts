/**
 * Shell completion, computed by the program itself so the scripts in completions/ stay thin and
 * never go stale: `mediagen __complete words -- <typed words…>` walks the commander tree, and
 * option values that name service objects (models, voices, looks, folders) come from the engine,
 * cached for 10 minutes.
 */
import type { Command, Option, Argument } from "commander";

export const DYNAMIC_KINDS = ["models", "voices", "looks", "folders", "jobs", "videos"] as const;
export type DynamicKind = (typeof DYNAMIC_KINDS)[number];

/** Which flags and arguments take which service ids, by name (so other groups' flags get them too). */
const OPTION_KINDS: Record<string, DynamicKind> = {
  "--model": "models",
  "--voice": "voices",
  "--voice-id": "voices",
  "--look": "looks",
  "--look-id": "looks",
  "--avatar-look-id": "looks",
  "--folder": "folders",
  "--folder-id": "folders",
  "--parent": "folders",
  "--parent-folder-id": "folders",
};
const ARGUMENT_KINDS: Record<string, DynamicKind> = {
  model: "models",
  name: "models",
  voice_id: "voices",
  look_id: "looks",
  folder_id: "folders",
  // Jobs and videos this machine started (the history, read through the job lives).
  id: "jobs",
  job_id: "jobs",
  video_id: "videos",
};

export type Completion = { lines: string[] } | { dynamic: DynamicKind };

const isHidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;

function optionsInScope(cmd: Command): Option[] {
  const all: Option[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) all.push(...c.options);
  return all;
}

function findOption(cmd: Command, flag: string): Option | undefined {
  return optionsInScope(cmd).find((o) => o.long === flag || o.short === flag);
}

const takesValue = (o: Option) => o.required || o.optional;

/** `words` are the words after `mediagen`; the last one is the word being completed (may be ""). */
export function completeWords(program: Command, words: string[]): Completion {
  const typed = words.length ? words.slice(0, -1) : [];
  const current = words.length ? words[words.length - 1]! : "";
  let cmd = program;
  let positional = 0;
  let pendingOption: Option | undefined;
  for (const w of typed) {
    if (pendingOption) {
      pendingOption = undefined;
      continue;
    }
    if (w === "--") continue;
    if (w.startsWith("-")) {
      if (w.includes("=")) continue;
      const o = findOption(cmd, w);
      if (o && takesValue(o)) pendingOption = o;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub && positional === 0) {
      cmd = sub;
      continue;
    }
    positional++;
  }

  const match = (lines: string[]) => ({ lines: lines.filter((l) => l.startsWith(current)) });

  if (pendingOption) {
    if (pendingOption.argChoices) return match(pendingOption.argChoices);
    const kind = pendingOption.long ? OPTION_KINDS[pendingOption.long] : undefined;
    return kind ? { dynamic: kind } : { lines: [] };
  }
  if (current.startsWith("-")) {
    const flags = optionsInScope(cmd)
      .filter((o) => !o.hidden && o.long)
      .map((o) => `${o.long}\t${o.description}`);
    return match([...flags, "--help\tshow help"]);
  }
  const subs = cmd.commands.filter((c) => !isHidden(c));
  if (subs.length && positional === 0) return match(subs.map((c) => `${c.name()}\t${c.description()}`));
  const arg: Argument | undefined = cmd.registeredArguments[positional] ?? cmd.registeredArguments.findLast((a) => a.variadic);
  if (arg?.argChoices) return match(arg.argChoices);
  const kind = arg ? ARGUMENT_KINDS[arg.name()] : undefined;
  return kind ? { dynamic: kind } : { lines: [] };
}

export interface TypedGlobals {
  target?: "local" | "hosted";
  baseUrl?: string;
  profile?: string;
}

const GLOBAL_VALUE_FLAGS: Record<string, keyof TypedGlobals> = { "--target": "target", "--base-url": "baseUrl", "--profile": "profile" };

/**
 * The target-selecting flags already typed on the line (not the word being completed), so ids are
 * offered from the target the finished command will use.
 */
export function typedGlobals(words: readonly string[]): TypedGlobals {
  const out: TypedGlobals = {};
  const typed = words.slice(0, -1);
  const set = (key: keyof TypedGlobals, value: string | undefined) => {
    if (value === undefined || value === "") return;
    if (key === "target") {
      if (value === "local" || value === "hosted") out.target = value;
    } else out[key] = value;
  };
  for (let i = 0; i < typed.length; i++) {
    const w = typed[i]!;
    if (w === "--") break;
    const eq = w.indexOf("=");
    const flag = eq > 0 ? w.slice(0, eq) : w;
    const key = GLOBAL_VALUE_FLAGS[flag];
    if (!key) continue;
    if (eq > 0) set(key, w.slice(eq + 1));
    else set(key, typed[++i]);
  }
  return out;
}
