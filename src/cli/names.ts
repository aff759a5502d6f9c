/**
 * Names where ids are asked: `--voice Emma`, `--avatar "Maya kitchen"`. A value that is an id of the
 * target's list is used as it is; otherwise it is read as a name (case-insensitive, every word of it
 * in the item's name): one match is used (and said), several are listed, none gets the nearest names
 * as a did-you-mean. A value shaped like an id that matches nothing goes to the service unchanged, so
 * ids the list does not show keep working.
 */
import { CliError, EXIT } from "./types.js";

export interface Named {
  id: string;
  /** How the item reads in messages: "Emma (vc_emma)". */
  label: string;
  /** The words a name is matched against (the name first). */
  words: string;
  /** The name alone, for did-you-mean. */
  name: string;
}

/** Edit distance, for near misses (short strings only). */
export function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\p{L}\p{N}_]+/gu, " ")
    .trim();
const ID_SHAPE = /^[A-Za-z]+_[\w-]+$/;

export type Resolved = { id: string; byName?: Named };

/**
 * The id `value` stands for among `items` (what `flag` asks for: "voice", "look"); throws a usage
 * error (exit 2, naming the flag) for a name that matches none or several.
 */
export function resolveName(value: string, items: readonly Named[], flag: string, what: string, listCommand: string): Resolved {
  if (items.some((i) => i.id === value)) return { id: value };
  const q = norm(value);
  const exact = items.filter((i) => norm(i.name) === q || norm(i.id) === q);
  if (exact.length === 1) return { id: exact[0]!.id, byName: exact[0]! };
  const words = q.split(" ").filter(Boolean);
  const matches = exact.length ? exact : items.filter((i) => words.length > 0 && words.every((w) => ` ${norm(i.words)} `.includes(` ${w} `)));
  if (matches.length === 1) return { id: matches[0]!.id, byName: matches[0]! };
  if (matches.length > 1) {
    const list = matches
      .slice(0, 8)
      .map((m) => m.label)
      .join(", ");
    throw new CliError(
      `${flag}: "${value}" names ${matches.length} ${what}s: ${list}${matches.length > 8 ? ", …" : ""}; give one of their ids`,
      EXIT.usage,
      "ambiguous_name",
      flag,
    );
  }
  if (ID_SHAPE.test(value)) return { id: value };
  const near = items
    .map((i) => ({ i, d: Math.min(distance(q, norm(i.name)), distance(q, norm(i.id))) }))
    .filter((x) => x.d <= Math.max(1, Math.floor(q.length / 3)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((x) => x.i.label);
  throw new CliError(
    `${flag}: no ${what} named "${value}"${near.length ? `; did you mean ${near.join(" or ")}?` : ""} (\`${listCommand}\` lists them)`,
    EXIT.usage,
    "unknown_name",
    flag,
  );
}

export interface VoiceItem {
  id: string;
  name: string;
  language?: string;
  gender?: string;
}
export interface LookItem {
  id: string;
  avatar_name?: string;
  look_name?: string;
  place?: string;
  gender?: string;
}

export const voiceNamed = (v: VoiceItem): Named => ({ id: v.id, name: v.name, words: v.name, label: `${v.name} (${v.id})` });
export const lookNamed = (l: LookItem): Named => ({
  id: l.id,
  name: l.look_name ?? l.id,
  words: [l.look_name, l.avatar_name, l.place].filter(Boolean).join(" "),
  label: `${l.look_name ?? l.id} (${l.id})`,
});
