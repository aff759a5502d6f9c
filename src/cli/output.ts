/**
 * Rendering of results: JSON for scripts, ids for --quiet, tables and key/value blocks for people.
 * Kept free of heavy imports; chalk is loaded once by the frame before an action runs, and only
 * when colour is on.
 */
import { createRequire } from "node:module";
import { escapeControls } from "./terminal-text.js";

export type Paint = (s: string) => string;
export interface Styles {
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
}

const plain: Paint = (s) => s;
const plainStyles = (): Styles => ({ bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain });

/** Styles for stdout. */
export const style: Styles = plainStyles();
/** Styles for stderr (errors, warnings). */
export const errStyle: Styles = plainStyles();

/**
 * Sets the styles for one run. They are module state, so every run sets both (a run in process after
 * a coloured one must not inherit its colour); runs in one process at once share one colour setting.
 */
export async function loadStyles(stdoutColor: boolean, stderrColor: boolean): Promise<void> {
  resetStyles();
  if (!stdoutColor && !stderrColor) return;
  const { Chalk } = await import("chalk");
  const c = new Chalk({ level: 1 });
  const fill = (s: Styles) => {
    s.bold = (x) => c.bold(x);
    s.dim = (x) => c.dim(x);
    s.red = (x) => c.red(x);
    s.green = (x) => c.green(x);
    s.yellow = (x) => c.yellow(x);
    s.cyan = (x) => c.cyan(x);
  };
  if (stdoutColor) fill(style);
  if (stderrColor) fill(errStyle);
}

/** No colour anywhere: what a process starts with. */
export function resetStyles(): void {
  Object.assign(style, plainStyles());
  Object.assign(errStyle, plainStyles());
}

// string-width builds an `Intl.Segmenter` as it loads (about 20 ms of every command's start-up): it
// is loaded on the first text that is not plain ASCII, so JSON output and ASCII tables never pay
// for it. A synchronous require() of an ES module: Node 20.19+, 22.12+.
const loadPackage = createRequire(import.meta.url);
let stringWidth: ((s: string) => number) | undefined;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the colour sequences the CLI writes itself (SGR).
const COLOURS = /\u001b\[[0-9;]*m/g;
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

/** The columns a string takes on a terminal: colour codes none, a CJK character or an emoji two, a combining mark none. */
export function visibleLength(s: string): number {
  const bare = s.replace(COLOURS, "");
  if (PRINTABLE_ASCII.test(bare)) return bare.length;
  stringWidth ??= (loadPackage("string-width") as typeof import("string-width")).default;
  return stringWidth(s);
}

/** How a value reads in a table cell or a key/value line. */
export function cell(v: unknown): string {
  if (v === undefined || v === null || v === "") return "-";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) return v.length ? v.map((x) => (typeof x === "object" ? JSON.stringify(x) : String(x))).join(", ") : "-";
  if (typeof v === "object") return JSON.stringify(v);
  return escapeControls(String(v).replace(/\s*\n\s*/g, " "));
}

export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
  align?: "left" | "right";
  /**
   * An id (or anything the next command takes: a path, a model name): always printed whole, never
   * left out. When no column of a table says, the first column is the id.
   */
  id?: boolean;
  /** Left out first (last such column first) when the table does not fit. */
  optional?: boolean;
  /** Printed whole or not at all (URLs, timestamps): never wrapped. */
  whole?: boolean;
}

const GAP = 2;
/** A wrapped column keeps at least this many characters (or its header, if longer). */
const MIN_WRAP = 10;
/** …or narrower than its longest word, up to this many characters (longer words are split). */
const MIN_WORD = 20;

/** Made on the first cut (building a segmenter loads ICU data: some 20 ms a command would pay at start-up). */
let graphemes: Intl.Segmenter | undefined;

/** `s` padded with spaces to `width` columns (on the left for right-aligned). */
function padTo(s: string, width: number, align: "left" | "right" = "left"): string {
  const fill = " ".repeat(Math.max(0, width - visibleLength(s)));
  return align === "right" ? fill + s : s + fill;
}

/** The longest start of `s` that fits in `width` columns (at least one character), and the rest. */
function cutAt(s: string, width: number): [string, string] {
  let used = 0;
  let end = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const { segment } of graphemes.segment(s)) {
    const w = visibleLength(segment);
    if (used + w > width && end > 0) break;
    used += w;
    end += segment.length;
  }
  return [s.slice(0, end), s.slice(end)];
}

/** Splits a cell into lines of at most `width` columns, at spaces when it can (CJK and emoji take two). */
export function wrapCell(s: string, width: number): string[] {
  if (visibleLength(s) <= width || width <= 0) return [s];
  const lines: string[] = [];
  let line = "";
  for (const word of s.split(/ +/)) {
    let w = word;
    if (line && visibleLength(line) + 1 + visibleLength(w) <= width) {
      line += " " + w;
      continue;
    }
    if (line) lines.push(line);
    line = "";
    while (visibleLength(w) > width) {
      const [head, rest] = cutAt(w, width);
      lines.push(head);
      w = rest;
    }
    line = w;
  }
  if (line) lines.push(line);
  return lines.length ? lines : [""];
}

/**
 * A table that fits `width`, with one strategy for every table of the CLI: id columns (what the next
 * command needs) are printed whole and never left out; when the table is too wide, optional columns
 * are left out (the last one first) until it fits, then other descriptive columns that cannot fit
 * even wrapped, and what remains too wide wraps inside its column (a row takes several lines).
 * Nothing is cut with "…". When even the ids do not fit, the line is longer than `width`.
 */
export function table<T>(rows: readonly T[], allColumns: readonly Column<T>[], width = Infinity): string[] {
  const marked = allColumns.some((c) => c.id);
  const isId = (c: Column<T>, i: number) => (marked ? c.id === true : i === 0);
  const all = allColumns.map((c, i) => {
    const cells = rows.map((r) => cell(c.get(r)));
    const natural = Math.max(visibleLength(c.header), ...cells.map(visibleLength));
    const id = isId(c, i);
    // A wrapped column is not made narrower than its longest word (up to MIN_WORD), so words stay whole.
    const longestWord = Math.max(0, ...cells.flatMap((x) => x.split(/ +/).map(visibleLength)));
    const min = id || c.whole ? natural : Math.min(natural, Math.max(visibleLength(c.header), MIN_WRAP, Math.min(longestWord, MIN_WORD)));
    return { c, cells, natural, min, id };
  });
  type Col = (typeof all)[number];
  const total = (cols: readonly Col[], w: (x: Col) => number) => cols.reduce((sum, x) => sum + w(x), 0) + GAP * Math.max(0, cols.length - 1);

  let kept = [...all];
  // Optional columns go first (the last one first) until the table fits at its natural width; then
  // other descriptive columns (last first), only while the rest cannot fit even wrapped. Ids stay.
  for (const x of all.filter((y) => !y.id && y.c.optional).reverse()) {
    if (total(kept, (y) => y.natural) <= width) break;
    kept = kept.filter((y) => y !== x);
  }
  for (const x of all.filter((y) => !y.id && !y.c.optional).reverse()) {
    if (total(kept, (y) => y.min) <= width) break;
    kept = kept.filter((y) => y !== x);
  }
  const widths = new Map(kept.map((x) => [x, x.natural]));
  let over = total(kept, (x) => widths.get(x)!) - width;
  while (over > 0) {
    // The widest column that may still give up a character wraps one character narrower.
    let widest: Col | undefined;
    for (const x of kept) if (widths.get(x)! > x.min && (!widest || widths.get(x)! > widths.get(widest)!)) widest = x;
    if (!widest) break;
    widths.set(widest, widths.get(widest)! - 1);
    over--;
  }
  const render = (values: string[], paint?: Paint): string[] => {
    const wrapped = values.map((v, i) => wrapCell(v, widths.get(kept[i]!)!));
    const height = Math.max(1, ...wrapped.map((w) => w.length));
    const out: string[] = [];
    for (let n = 0; n < height; n++) {
      out.push(
        wrapped
          .map((w, i) => {
            const x = kept[i]!;
            const t = w[n] ?? "";
            const padded = padTo(t, widths.get(x)!, x.c.align);
            return paint ? paint(padded) : padded;
          })
          .join(" ".repeat(GAP))
          .trimEnd(),
      );
    }
    return out;
  };
  return [
    ...render(
      kept.map((x) => x.c.header.toUpperCase()),
      style.bold,
    ),
    ...rows.flatMap((_, r) => render(kept.map((x) => x.cells[r]!))),
  ];
}

/**
 * A live line (spinner, progress bar) cut to `width` columns with "…", so the terminal never wraps
 * it: a wrapped live line cannot be redrawn in place. Talk that stays (notes) wraps at words instead.
 */
export function fitLine(s: string, width: number): string {
  if (!Number.isFinite(width) || width <= 0 || visibleLength(s) <= width) return s;
  return width === 1 ? "…" : cutAt(s, width - 1)[0] + "…";
}

/** The width of stderr when it is a terminal that reports one; Infinity otherwise (never wrapped). */
export function stderrWidth(io: { isStderrTTY: boolean; stderr: unknown }): number {
  const cols = (io.stderr as { columns?: number }).columns;
  return io.isStderrTTY && typeof cols === "number" && cols > 0 ? cols : Infinity;
}

/** Aligned `label  value` lines for one record. */
export function keyValues(pairs: ReadonlyArray<readonly [string, unknown]>): string[] {
  const w = Math.max(0, ...pairs.map(([k]) => visibleLength(k)));
  return pairs.map(([k, v]) => `${style.dim(padTo(k, w))}  ${cell(v)}`.trimEnd());
}

/** The JSON form of a result: the service object unchanged. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

const ID_FIELDS = ["id", "job_id", "asset_id", "video_id", "look_id", "api_key"] as const;

/** What --quiet prints when a command gives no explicit lines: the record's id (or each item's). */
export function defaultQuietLines(result: unknown): string[] {
  const idOf = (o: unknown): string | undefined => {
    if (!o || typeof o !== "object") return typeof o === "string" ? o : undefined;
    for (const f of ID_FIELDS) {
      const v = (o as Record<string, unknown>)[f];
      if (typeof v === "string" && v) return v;
    }
    return undefined;
  };
  if (Array.isArray(result)) return result.map(idOf).filter((x): x is string => !!x);
  const single = idOf(result);
  return single ? [single] : [];
}

/** Columns a human table may use: the terminal's width on a TTY, unlimited when piped. */
export function widthOf(io: { isStdoutTTY: boolean; stdout: unknown; width?: number }): number {
  if (typeof io.width === "number") return io.width;
  const cols = (io.stdout as { columns?: number }).columns;
  return io.isStdoutTTY ? (typeof cols === "number" && cols > 0 ? cols : 80) : Infinity;
}
