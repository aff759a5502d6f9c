/**
 * A suggestion for an unknown long flag that commander's edit distance misses: the service's field
 * name written as a flag (`--generation-count` for `--count`, `--aspect` for `--aspect-ratio`). A
 * known flag whose words are the first or the last words of the typed one (or the other way round)
 * is suggested; commander's own nearest-spelling suggestion covers typos.
 */
import type { Command } from "commander";

const wordsOf = (flag: string) => flag.replace(/^--/, "").toLowerCase().split(/[-_]+/).filter(Boolean);

function endsOrStartsWith(long: readonly string[], short: readonly string[]): boolean {
  if (short.length === 0 || short.length >= long.length) return false;
  const head = long.slice(0, short.length).join("-");
  const tail = long.slice(long.length - short.length).join("-");
  const s = short.join("-");
  return head === s || tail === s;
}

/** The known flag (of `cmd` and its parents) `flag` most likely meant, by words; undefined if none. */
export function flagByWords(cmd: Command, flag: string): string | undefined {
  const typed = wordsOf(flag);
  const known: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const o of c.options) if (o.long && !o.hidden) known.push(o.long);
  }
  const hits = known.filter((k) => {
    const w = wordsOf(k);
    return endsOrStartsWith(typed, w) || endsOrStartsWith(w, typed);
  });
  return hits.length === 1 ? hits[0] : undefined;
}

/** Makes `cmd` suggest by words before commander's own suggestion. */
export function suggestFlagsByWords(cmd: Command): void {
  // unknownOption is commander's (not in its typings): the one place it reports an unknown flag.
  const c = cmd as unknown as { unknownOption(flag: string): void };
  const own = c.unknownOption.bind(cmd);
  c.unknownOption = (flag: string) => {
    const hit = flag.startsWith("--") ? flagByWords(cmd, flag) : undefined;
    if (hit) cmd.error(`error: unknown option '${flag}'\n(Did you mean ${hit}?)`, { code: "commander.unknownOption" });
    own(flag);
  };
}
