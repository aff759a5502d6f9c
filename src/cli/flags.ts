/**
 * Flags declared once (wrangler's typed args). Each flag of a command is one entry: its commander
 * spelling, value type, help, and the request field it fills. From that one declaration come the
 * commander options (in declaration order, which is the order of `--help`), the checked and typed
 * values (a bad value is a usage error, exit 2, naming the flag), and the request body, merged over
 * a `--body`. Plain TypeScript: no zod on the startup path of a command.
 *
 *   const FLAGS = defineFlags({
 *     name: { flag: "--name <name>", type: "string", help: "folder name (required)", field: "name" },
 *     count: { flag: "--count <n>", type: "integer", help: "how many", field: "generation_count" },
 *   });
 *   FLAGS.addTo(cmd).action(async (opts: FlagInput<typeof FLAGS>) => {
 *     const values = FLAGS.values(opts);            // { name?: string; count?: number }
 *     const body = FLAGS.request(values, base);     // { ...base, name, generation_count }
 *   });
 */
import { Option, type Command } from "commander";
import { CliError, EXIT } from "./types.js";
import { collect, parseSimulate } from "./parse.js";

/** What fills a request field: the flag's value, possibly combined with what the body already has. */
type Fill<T> = (value: T, body: Record<string, unknown>) => unknown;

interface Common {
  /** Commander spelling, e.g. `--aspect-ratio <ratio>` or `--watch`. */
  flag: string;
  help: string;
  /** The request field the flag fills (none: the flag steers the command, e.g. `--body`). */
  field?: string;
  /**
   * The flag names media the service fetches: `url` a URL (or, locally, a file), `ref` also
   * `asset:<id>`/`avatar:<id>`, `element` `name=ref,ref`. The hosted target takes public http(s)
   * URLs only (it has no upload): `hostedMediaError` refuses the rest, and the help says so.
   */
  media?: "url" | "ref" | "element";
  /** Left out of `--help`: an older spelling kept working, or a flag that only explains why it is refused. */
  hidden?: boolean;
  /** Commander refuses the command without it ("required option … not specified", exit 2). */
  required?: boolean;
}

/** A text value, optionally converted (`to` throws a CliError for a bad one). */
export interface StringFlag<T = string> extends Common {
  type: "string";
  /** The value when the flag is not given (checked as a given one; `--help` shows it). */
  default?: string;
  to?: (value: string, flag: string) => T;
  fill?: Fill<T>;
}
/** A whole number written in decimal digits (`0x2`, `1e1`, `4.2` are refused). */
export interface IntegerFlag extends Common {
  type: "integer";
  /** The value when the flag is not given (checked as a given one; `--help` shows it). */
  default?: string;
  fill?: Fill<number>;
}
/** A decimal number (`4.2`; no hex, no exponent). */
export interface NumberFlag extends Common {
  type: "number";
  /** The value when the flag is not given (checked as a given one; `--help` shows it). */
  default?: string;
  fill?: Fill<number>;
}
/** A switch; `negate` adds `--no-<name>` with that help, so the value can also be false. */
export interface BooleanFlag extends Common {
  type: "boolean";
  negate?: string;
  fill?: Fill<boolean>;
}
/** One of a fixed set of words (commander lists them in --help and refuses others). */
export interface ChoiceFlag<C extends string = string> extends Common {
  type: "choice";
  choices: readonly C[];
  default?: C;
  fill?: Fill<C>;
}
/** A repeatable flag: every value in order, each optionally converted by `item`. */
export interface ListFlag<T = string> extends Common {
  type: "list";
  item?: (value: string, flag: string) => T;
  fill?: Fill<T[]>;
}
/** A JSON value. */
export interface JsonFlag extends Common {
  type: "json";
  fill?: Fill<unknown>;
}

// biome-ignore lint/suspicious/noExplicitAny: a declaration mixes flags of every value type; each flag's `fill` takes its own type, which `unknown` would not accept.
export type FlagSpec = StringFlag<any> | IntegerFlag | NumberFlag | BooleanFlag | ChoiceFlag<any> | ListFlag<any> | JsonFlag;
export type FlagDecl = Record<string, FlagSpec>;

/** The checked value of one flag. */
export type ValueOf<S> = S extends { type: "string"; to: (...a: never[]) => infer T }
  ? T
  : S extends { type: "string" }
    ? string
    : S extends { type: "integer" | "number" }
      ? number
      : S extends { type: "boolean" }
        ? boolean
        : S extends { type: "choice"; choices: readonly (infer C)[] }
          ? C
          : S extends { type: "list"; item: (...a: never[]) => infer T }
            ? T[]
            : S extends { type: "list" }
              ? string[]
              : unknown;

/** The checked values of a declaration: a flag not given is absent. */
export type FlagValues<D extends FlagDecl> = { -readonly [K in keyof D]?: ValueOf<D[K]> };

/** What commander hands an action for a declaration (text, lists of text, switches). */
export type RawFlags<D extends FlagDecl> = {
  -readonly [K in keyof D]?: D[K] extends { type: "boolean" } ? boolean : D[K] extends { type: "list" } ? string[] : string;
};
/** The action's options object for a flag set. */
export type FlagInput<F> = F extends FlagSet<infer D> ? RawFlags<D> : never;

/** The long name of a spelling: `--aspect-ratio <ratio>` → `--aspect-ratio`. */
export function longName(spelling: string): string {
  const m = /--[a-z0-9][a-z0-9-]*/i.exec(spelling);
  if (!m) throw new TypeError(`flag spelling without a long name: ${spelling}`);
  return m[0];
}

/** A usage error (exit 2) naming the flag, as every bad flag value reports. */
export function flagError(flag: string, message: string, code = "invalid_value"): CliError {
  return new CliError(`${flag}: ${message}`, EXIT.usage, code, flag);
}

/**
 * For a `string` flag's `to`: a whole number of at least `min` (`--width 0` is "expected a whole
 * number of at least 1").
 */
export function wholeAtLeast(min: number) {
  return (value: string, flag: string): number => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isInteger(n) || n < min) throw flagError(flag, `expected a whole number${min > 0 ? ` of at least ${min}` : ""}, got "${value}"`);
    return n;
  };
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d+)?|\.\d+)$/;

function textOf(flag: string, raw: unknown): string {
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" && Number.isFinite(raw)) return String(raw);
  throw flagError(flag, `expected a value, got ${raw === null ? "null" : typeof raw}`);
}

/** Checks and converts one flag's raw value (see the spec types above for the rules). */
export function checkValue(spec: FlagSpec, raw: unknown): unknown {
  const flag = longName(spec.flag);
  switch (spec.type) {
    case "string": {
      const s = textOf(flag, raw);
      return spec.to ? spec.to(s, flag) : s;
    }
    case "integer":
    case "number": {
      const s = textOf(flag, raw).trim();
      if (!(spec.type === "integer" ? INTEGER : DECIMAL).test(s)) {
        throw flagError(flag, `expected ${spec.type === "integer" ? "a whole number" : "a number"}, got "${textOf(flag, raw)}"`);
      }
      return Number(s);
    }
    case "boolean":
      if (typeof raw === "boolean") return raw;
      if (raw === "true" || raw === "false") return raw === "true";
      throw flagError(flag, `expected true or false, got "${String(raw)}"`);
    case "choice": {
      const s = textOf(flag, raw);
      if (!spec.choices.includes(s)) throw flagError(flag, `expected one of ${spec.choices.join(", ")}, got "${s}"`);
      return s;
    }
    case "list": {
      const items = (Array.isArray(raw) ? raw : [raw]).map((x) => textOf(flag, x));
      return spec.item ? items.map((x) => spec.item!(x, flag)) : items;
    }
    case "json": {
      const s = textOf(flag, raw);
      try {
        return JSON.parse(s);
      } catch (e) {
        throw flagError(flag, `not valid JSON (${(e as Error).message})`, "invalid_json");
      }
    }
  }
}

const given = (raw: unknown) => raw !== undefined && !(Array.isArray(raw) && raw.length === 0);

/** Said in the help of every media flag. */
export const HOSTED_MEDIA_HELP = "hosted: public URLs only, no upload";

/**
 * A media value the hosted service cannot fetch (a local path, a file: URL, anything but http(s)),
 * as a usage error naming the flag; undefined when it is fine. The hosted service takes media by
 * public URL and offers no way to upload a file, so sending a path would fail there, or worse.
 */
export function hostedMediaError(flag: string, value: string): CliError | undefined {
  const v = value.trim();
  if (/^https?:\/\/[^\s/]+/i.test(v)) return undefined;
  const what = /^file:/i.test(v) ? "a file: URL" : /^[a-z][a-z0-9+.-]+:/i.test(v) ? "not an http(s) URL" : "a local path";
  return flagError(
    flag,
    `"${v}" is ${what}; the hosted service fetches media from public http(s) URLs and has no upload. ` +
      "Put the file where the service can fetch it (or use an asset:<id> reference where one is taken), or use --target local.",
    "local_media",
  );
}

/** The media values of one flag's raw value, as hostedMediaError judges them (ids are no media). */
function mediaValues(kind: "url" | "ref" | "element", raw: unknown): string[] {
  const items = (Array.isArray(raw) ? raw : [raw]).filter((x): x is string => typeof x === "string");
  const refs = (list: string[]) => list.map((v) => v.trim()).filter((v) => v !== "" && !/^(asset|avatar):/i.test(v));
  if (kind === "url") return items.map((v) => v.trim()).filter((v) => v !== "");
  if (kind === "ref") return refs(items);
  return refs(items.flatMap((e) => (e.includes("=") ? e.slice(e.indexOf("=") + 1).split(",") : [])));
}

/** One command's flags, declared once. */
export class FlagSet<D extends FlagDecl> {
  constructor(readonly decl: D) {
    for (const [key, spec] of Object.entries(decl)) {
      const attr = new Option(spec.flag).attributeName();
      if (attr !== key) throw new TypeError(`flag ${spec.flag} is declared as "${key}"; commander calls it "${attr}"`);
    }
  }

  /** This set followed by more flags (a shared group plus a command's own). */
  extend<E extends FlagDecl>(more: E): FlagSet<D & E> {
    return new FlagSet({ ...this.decl, ...more } as D & E);
  }

  /** Adds the commander options, in declaration order. */
  addTo(cmd: Command): Command {
    for (const spec of Object.values(this.decl)) {
      const option = new Option(spec.flag, spec.media ? `${spec.help} (${HOSTED_MEDIA_HELP})` : spec.help);
      if (spec.type === "choice") option.choices(spec.choices as string[]);
      if (spec.type === "list") option.argParser(collect);
      if ("default" in spec && spec.default !== undefined) option.default(spec.default);
      if (spec.required) option.makeOptionMandatory();
      if (spec.hidden) option.hideHelp();
      cmd.addOption(option);
      if (spec.type === "boolean" && spec.negate !== undefined) {
        const negation = new Option(`--no-${longName(spec.flag).slice(2)}`, spec.negate);
        cmd.addOption(spec.hidden ? negation.hideHelp() : negation);
      }
    }
    return cmd;
  }

  /**
   * The checked values of the flags given, in declaration order: the first bad one is reported as a
   * usage error (exit 2) naming it. A repeatable flag given no value counts as not given.
   */
  values(raw: RawFlags<D> | Record<string, unknown>): FlagValues<D> {
    const out: Record<string, unknown> = {};
    for (const [key, spec] of Object.entries(this.decl)) {
      const v = (raw as Record<string, unknown>)[key];
      if (given(v)) out[key] = checkValue(spec, v);
    }
    return out as FlagValues<D>;
  }

  /** The request: `base` (from `--body`) with each given flag over its field, in declaration order. */
  request(values: FlagValues<D>, base: Record<string, unknown> = {}): Record<string, unknown> {
    const out: Record<string, unknown> = { ...base };
    for (const [key, spec] of Object.entries(this.decl)) {
      const v = (values as Record<string, unknown>)[key];
      if (spec.field === undefined || v === undefined) continue;
      out[spec.field] = spec.fill ? (spec.fill as Fill<unknown>)(v, out) : v;
    }
    return out;
  }

  /**
   * For the hosted target: the first media flag value it cannot take (see `hostedMediaError`), in
   * declaration order; undefined when every one is a public URL or an id.
   */
  hostedMediaError(raw: RawFlags<D> | Record<string, unknown>): CliError | undefined {
    for (const [key, spec] of Object.entries(this.decl)) {
      const v = (raw as Record<string, unknown>)[key];
      if (!spec.media || !given(v)) continue;
      for (const value of mediaValues(spec.media, v)) {
        const e = hostedMediaError(longName(spec.flag), value);
        if (e) return e;
      }
    }
    return undefined;
  }

  /**
   * For `ctx.explainWith`: the flag that filled a request field on this command line (a field that
   * came from `--body` or a default has none).
   */
  givenFlags(values: FlagValues<D>): (field: string) => string | undefined {
    return (field) => {
      const entry = Object.entries(this.decl).find(([key, s]) => s.field === field && (values as Record<string, unknown>)[key] !== undefined);
      return entry ? longName(entry[1].flag) : undefined;
    };
  }

  /** The flag that fills a request field, for messages such as "missing required flag --model". */
  flagFor(field: string): string | undefined {
    const spec = Object.values(this.decl).find((s) => s.field === field);
    return spec ? longName(spec.flag) : undefined;
  }
}

/** Declares a command's flags once; see the module comment. */
export function defineFlags<const D extends FlagDecl>(decl: D): FlagSet<D> {
  return new FlagSet(decl);
}

/** `--body`, shared by every command that sends a body. */
export const BODY_FLAG = {
  flag: "--body <file>",
  type: "string",
  help: "request body as JSON from a file or - (stdin); flags override its fields",
} as const satisfies StringFlag;

/** `--simulate`, the local instance's deterministic failure (X-Local-Simulate). */
export const SIMULATE_FLAG = {
  flag: "--simulate <mode>",
  type: "string",
  to: (value: string) => parseSimulate(value)!,
  help: "local instance only: fail or fail:<CODE> makes the generation fail (refunded)",
} as const satisfies StringFlag;
