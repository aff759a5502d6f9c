/**
 * Rendering of results: JSON for scripts, ids for --quiet, tables and key/value blocks for people.
 * Kept free of heavy imports; chalk is loaded once by the frame before an action runs, and only
 * when colour is on.
 */
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

// eslint-disable-next-line no-control-regex
const ANSI_RE = /\u001b\[[0-9;]*m/g;
export const visibleLength = (s: string) => s.replace(ANSI_RE, "").length;

/** How a value reads in a table cell or a key/value line. */
export function cell(v: unknown): string {
  if (v === undefined || v === null || v === "") return "-";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (Array.isArray(v)) return v.length ? v.map((x) => (typeof x === "object" ? JSON.stringify(x) : String(x))).join(", ") : "-";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v).replace(/\s*\n\s*/g, " ");
}

function truncate(s: string, width: number): string {
  if (s.length <= width) return s;
  if (width <= 1) return s.slice(0, width);
  return s.slice(0, width - 1) + "…";
}

export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
  align?: "left" | "right";
  /** Left out, in column order, when the table would not fit at its natural width otherwise. */
  optional?: boolean;
}

const GAP = 2;

/** The columns that fit `width` at their natural width: every required one, then optional ones in order. */
function fittingColumns<T>(rows: readonly T[], columns: readonly Column<T>[], width: number): Column<T>[] {
  if (!columns.some((c) => c.optional)) return [...columns];
  const natural = (c: Column<T>) => Math.max(c.header.length, ...rows.map((r) => cell(c.get(r)).length));
  let used = columns.filter((c) => !c.optional).reduce((sum, c) => sum + natural(c) + GAP, -GAP);
  return columns.filter((c) => {
    if (!c.optional) return true;
    if (used + GAP + natural(c) > width) return false;
    used += GAP + natural(c);
    return true;
  });
}

/**
 * A table that fits `width`: optional columns that do not fit are left out, then the widest columns
 * give up characters (cut with "…") but never below their header or 8 characters, so ids stay
 * legible and nothing wraps.
 */
export function table<T>(rows: readonly T[], allColumns: readonly Column<T>[], width = Infinity): string[] {
  const columns = fittingColumns(rows, allColumns, width);
  const cells = rows.map((r) => columns.map((c) => cell(c.get(r))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]!.length)));
  const floor = columns.map((c, i) => Math.min(widths[i]!, Math.max(c.header.length, 8)));
  let total = widths.reduce((a, b) => a + b, 0) + GAP * (columns.length - 1);
  while (total > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break;
    widths[widest]! -= 1;
    total -= 1;
  }
  const line = (values: string[], paint?: Paint) =>
    values
      .map((v, i) => {
        const t = truncate(v, widths[i]!);
        const padded = columns[i]!.align === "right" ? t.padStart(widths[i]!) : t.padEnd(widths[i]!);
        return paint ? paint(padded) : padded;
      })
      .join(" ".repeat(GAP))
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase()), style.bold), ...cells.map((row) => line(row))];
}

/** Aligned `label  value` lines for one record. */
export function keyValues(pairs: ReadonlyArray<readonly [string, unknown]>): string[] {
  const w = Math.max(0, ...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${style.dim(k.padEnd(w))}  ${cell(v)}`.trimEnd());
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
