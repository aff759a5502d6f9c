/**
 * Names where ids are asked: `--voice Emma`, `--avatar "Maya kitchen"`. A value that is an id of the
 * target's list is used as it is; otherwise it is read as a name (case-insensitive, every word of it
 * in the item's name): one match is used (and said), several are listed. Ids are opaque (hosted-facts:
 * only the service can say one does not exist): a value that names nothing and could be an id (one
 * word) goes to the service unchanged, and when the service answers that the id is unknown, the
 * nearest names are offered as a did-you-mean (`hintUnknownIds`). A value that cannot be an id (it has
 * spaces) and names nothing is refused here with the nearest names.
 */
import { ApiError } from "../engine/errors.js";
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
  if (couldBeId(value)) return { id: value };
  const near = nearNames(value, items);
  throw new CliError(
    `${flag}: no ${what} named "${value}"${near.length ? `; did you mean ${near.join(" or ")}?` : ""} (\`${listCommand}\` lists them)`,
    EXIT.usage,
    "unknown_name",
    flag,
  );
}

/** Ids are opaque, but one word: a value with spaces is a name. */
export const couldBeId = (value: string): boolean => value.trim() !== "" && !/\s/.test(value.trim());

/** The labels of the items whose name (or id) is nearest `value`, at most three. */
export function nearNames(value: string, items: readonly Named[]): string[] {
  const q = norm(value);
  const close = (a: string, b: string) => distance(a, b) <= Math.max(1, Math.floor(a.length / 3));
  const qWords = q.split(" ").filter(Boolean);
  /** Words of a name: each word of the value near one of them ("Maya kitchn" → Maya in the kitchen). */
  const byWords = (i: Named): number | undefined => {
    const words = norm(i.words).split(" ");
    let total = 0;
    for (const w of qWords) {
      const best = Math.min(...words.map((x) => distance(w, x)));
      if (!close(w, words.find((x) => distance(w, x) === best) ?? "")) return undefined;
      total += best;
    }
    return total;
  };
  return items
    .map((i) => {
      const whole = Math.min(distance(q, norm(i.name)), distance(q, norm(i.id)));
      const words = qWords.length > 1 ? byWords(i) : undefined;
      return { i, d: close(q, norm(i.name)) || whole <= Math.max(1, Math.floor(q.length / 3)) ? whole : words };
    })
    .filter((x): x is { i: Named; d: number } => x.d !== undefined)
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((x) => x.i.label);
}

/** Ids given as they are (`vc_emma`, `lk_x`): used without asking the target for its list. */
export const idShaped = (v: unknown): boolean => typeof v === "string" && ID_SHAPE.test(v);

/** A value sent as an id, and how to name near ones if the service says it does not exist. */
export interface SentId {
  /** The request's field (`voice_id`, `sequence_plan[0].voice_id`). */
  field: string;
  value: string;
  what: string;
  listCommand: string;
  /** The target's list, read only when needed. */
  items(): Promise<readonly Named[]>;
}

/** Codes the service answers for an id it does not know (generation start, plans, duplicate). */
const UNKNOWN_ID_CODES = new Set(["INVALID_VOICE_ID", "INVALID_AVATAR_ID", "PLAN_RESOLUTION_FAILED", "invalid_voice_id", "invalid_avatar_id"]);

/**
 * Runs `call`; when the service answers that an id sent is unknown, the error gets a hint with the
 * nearest names of that list (a did-you-mean), so an id typed from memory finds its way.
 */
export async function hintUnknownIds<T>(call: () => Promise<T>, sent: readonly SentId[]): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof ApiError) || !UNKNOWN_ID_CODES.has(e.code)) throw e;
    const which = sent.find((s) => s.field === e.field) ?? (e.field === undefined && sent.length === 1 ? sent[0] : undefined);
    if (!which) throw e;
    let near: string[] = [];
    try {
      near = nearNames(which.value, await which.items());
    } catch {
      // The list could not be read: the service's answer stands as it is.
    }
    (e as ApiError & { hint?: string }).hint = near.length
      ? `Did you mean ${near.join(" or ")}? (\`${which.listCommand}\` lists the ${which.what}s)`
      : `\`${which.listCommand}\` lists the ${which.what}s.`;
    throw e;
  }
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
