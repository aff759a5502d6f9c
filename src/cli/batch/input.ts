/**
 * The lines of a batch: a JSONL file (one request per line, with its `kind`) or a CSV file mapped
 * through a command template (`--as 'asset --model {model} --prompt {prompt}'`). Every line is
 * checked before anything starts: a bad line is a usage error (exit 2) naming its number, and
 * nothing is sent. The template is split into words once, shell-style (quotes, backslashes), and
 * the `{column}` placeholders are filled inside each word afterwards: a value is never split, never
 * globbed, never run. No shell is involved at any point.
 */
import crypto from "node:crypto";
import { parse as parseCsvText } from "csv-parse/sync";
import { CliError, EXIT } from "../types.js";
import { lifeOf, lifeOps } from "../../features/lives.js";
import type { OpName } from "../../features/operations.js";
import { longName, type FlagSet, type FlagDecl } from "../flags.js";

export const BATCH_KINDS = ["asset", "avatar", "generate", "export", "script", "duplicate"] as const;
export type BatchKind = (typeof BATCH_KINDS)[number];

export interface BatchLine {
  /** 1-based number of the request in the file (the JSONL line number; the CSV data row). */
  line: number;
  kind: BatchKind;
  /** The request body of the kind's start operation. */
  body: Record<string, unknown>;
  /** generate and duplicate: export the video when it is done (POST /export/start fields). */
  export?: Record<string, unknown>;
  /** Local instance only: make the job fail (`fail` or `fail:<CODE>`). */
  simulate?: string;
  /** Values usable in the file-name template: the CSV row, or the line's top-level text fields. */
  fields: Record<string, string>;
  /** sha256 of the request (kind, body, export, simulate), canonical JSON: what the manifest keys on. */
  hash: string;
}

const usage = (message: string, field = "input") => new CliError(message, EXIT.usage, "invalid_batch", field);

/** JSON with object keys sorted at every depth: equal requests hash equal whatever the key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

export function requestHash(l: Pick<BatchLine, "kind" | "body" | "export" | "simulate">): string {
  const text = canonicalJson({ kind: l.kind, body: l.body, export: l.export, simulate: l.simulate });
  return crypto.createHash("sha256").update(text).digest("hex").slice(0, 16);
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

function textFields(o: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === "string" || typeof v === "number") out[k] = String(v);
  return out;
}

/** What every kind needs before it is sent (the service checks the rest, per line, at run time). */
function checkLine(l: Omit<BatchLine, "hash" | "fields">, where: string): void {
  const b = l.body;
  const need = (field: string) => {
    if (b[field] === undefined || b[field] === null || b[field] === "") throw usage(`${where}: ${l.kind} needs "${field}"`, field);
  };
  switch (l.kind) {
    case "asset":
      need("model");
      break;
    case "export":
    case "duplicate":
      need("video_id");
      break;
    case "script":
      need("prompt");
      break;
    case "avatar":
      if (b.look_id !== undefined && b.avatar_id === undefined) need("avatar_id");
      break;
    case "generate":
      if (!["sequence_plan", "script", "prompt", "voice_url", "avatar_url"].some((k) => b[k] !== undefined && b[k] !== "")) {
        throw usage(`${where}: generate needs one of prompt (with duration), script, sequence_plan, voice_url, avatar_url`, "prompt");
      }
      break;
  }
  if (l.export !== undefined && l.kind !== "generate" && l.kind !== "duplicate") {
    throw usage(`${where}: "export" chains an export after generate or duplicate only, not ${l.kind}`, "export");
  }
  if (l.simulate !== undefined && !/^fail(:[A-Za-z0-9_]+)?$/.test(l.simulate)) {
    throw usage(`${where}: "simulate" must be fail or fail:<CODE>, got "${l.simulate}"`, "simulate");
  }
}

function finish(l: Omit<BatchLine, "hash">, where: string): BatchLine {
  checkLine(l, where);
  return { ...l, hash: requestHash(l) };
}

/** One line of a JSONL batch, or the usage error that says what is wrong with it. */
function jsonlLine(lineText: string, n: number, where: string): BatchLine {
  let v: unknown;
  try {
    v = JSON.parse(lineText);
  } catch (e) {
    throw usage(`${where}: not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(v)) throw usage(`${where}: each line must be a JSON object with a "kind"`);
  const { kind, export: exp, simulate, ...body } = v;
  if (typeof kind !== "string" || !(BATCH_KINDS as readonly string[]).includes(kind)) {
    throw usage(`${where}: "kind" must be one of ${BATCH_KINDS.join(", ")}, got ${JSON.stringify(kind)}`, "kind");
  }
  if (exp !== undefined && exp !== true && !isObject(exp)) throw usage(`${where}: "export" must be an object of export fields (or true)`, "export");
  if (simulate !== undefined && typeof simulate !== "string") throw usage(`${where}: "simulate" must be a string`, "simulate");
  return finish(
    {
      line: n,
      kind: kind as BatchKind,
      body,
      ...(exp !== undefined ? { export: exp === true ? {} : exp } : {}),
      ...(simulate !== undefined ? { simulate } : {}),
      fields: textFields(body),
    },
    where,
  );
}

/** Every bad line at once: one usage error (exit 2) listing each, or nothing when all are good. */
function throwAll(problems: CliError[]): void {
  if (!problems.length) return;
  if (problems.length === 1) throw problems[0]!;
  const err = usage(`${problems.length} lines are not valid requests:\n  ${problems.map((p) => p.message).join("\n  ")}`, problems[0]!.field ?? "input");
  throw err;
}

/**
 * JSONL: `{"kind":"asset","type":"image","model":"…","prompt":"…"}` per line; blank and `#` lines are
 * skipped. Every bad line is reported, not just the first.
 */
export function parseJsonl(text: string, from: string): BatchLine[] {
  const out: BatchLine[] = [];
  const problems: CliError[] = [];
  text.split("\n").forEach((raw, i) => {
    const lineText = raw.trim();
    if (!lineText || lineText.startsWith("#")) return;
    try {
      out.push(jsonlLine(lineText, i + 1, `${from}:${i + 1}`));
    } catch (e) {
      if (!(e instanceof CliError)) throw e;
      problems.push(e);
    }
  });
  throwAll(problems);
  return out;
}

/** The operation a line starts: the start whose life names the line's kind (src/features/<f>/life.ts, \`batch\`). */
export function startOp(l: Pick<BatchLine, "kind" | "body">): OpName {
  const op = lifeOps().find((o) => {
    const b = lifeOf(o).batch;
    return b?.kind === l.kind && (b.when?.(l.body) ?? true);
  });
  if (!op) throw new Error(`no operation starts a batch line of kind ${l.kind}`);
  return op as OpName;
}

/**
 * The contract's judgement of every line before anything is sent: each line the service would refuse
 * is named with its problems (`"modle" is not a field of this request (did you mean model?)`), all
 * lines at once. Loads the schemas (zod) lazily.
 */
export async function judgeLines(lines: readonly BatchLine[], from: string, lineLabel = (n: number) => `${from}:${n}`): Promise<void> {
  const { requestProblemsOf } = await import("../../features/request-check.js");
  const problems: CliError[] = [];
  for (const l of lines) {
    const found = await requestProblemsOf(startOp(l), JSON.parse(JSON.stringify(l.body)));
    const chained = l.export !== undefined ? await requestProblemsOf("exportStart", { video_id: "the video", ...JSON.parse(JSON.stringify(l.export)) }) : [];
    const all = [...found, ...chained.map((p) => ({ ...p, message: `export: ${p.message}` }))];
    if (all.length) problems.push(usage(`${lineLabel(l.line)}: ${all.map((p) => `${p.message} (code ${p.code})`).join("; ")}`, all[0]!.field ?? "input"));
  }
  throwAll(problems);
}

/** A JSONL batch: parsed, then judged against the contract, every bad line reported. */
export async function readJsonlBatch(text: string, from: string): Promise<BatchLine[]> {
  const lines = parseJsonl(text, from);
  await judgeLines(lines, from);
  return lines;
}

/**
 * RFC 4180 CSV (csv-parse): quoted fields with doubled quotes, commas and newlines inside quotes;
 * CRLF, LF or CR line ends, mixed; a byte-order mark; a quote inside an unquoted field is a
 * character. Blank lines are left out.
 */
export function parseCsv(text: string): string[][] {
  let rows: string[][];
  try {
    rows = parseCsvText(text, { bom: true, relax_column_count: true, relax_quotes: true, record_delimiter: ["\r\n", "\n", "\r"] }) as string[][];
  } catch (e) {
    const code = (e as { code?: string }).code;
    throw usage(code === "CSV_QUOTE_NOT_CLOSED" ? "the CSV ends inside a quoted field" : `the CSV cannot be read: ${(e as Error).message}`);
  }
  return rows.filter((r) => !(r.length === 1 && r[0]!.trim() === ""));
}

/** Splits a template into words as a POSIX shell would (quotes and backslashes), without expanding anything. */
export function splitWords(template: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let i = 0;
  const add = (s: string) => (word = (word ?? "") + s);
  while (i < template.length) {
    const c = template[i]!;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === "'") {
      const end = template.indexOf("'", i + 1);
      if (end < 0) throw usage("--as: unterminated single quote", "--as");
      add(template.slice(i + 1, end));
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      for (; j < template.length && template[j] !== '"'; j++) {
        if (template[j] === "\\" && j + 1 < template.length && '"\\$`'.includes(template[j + 1]!)) j++;
        s += template[j];
      }
      if (j >= template.length) throw usage("--as: unterminated double quote", "--as");
      add(s);
      i = j + 1;
    } else if (c === "\\" && i + 1 < template.length) {
      add(template[i + 1]!);
      i += 2;
    } else {
      add(c);
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Fills `{column}` in one word; `{{` and `}}` are literal braces. An unknown column is a usage error. */
export function fillWord(word: string, row: Record<string, string>, where: string): string {
  return word.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (m, name: string | undefined) => {
    if (m === "{{") return "{";
    if (m === "}}") return "}";
    const key = name!.trim();
    if (!(key in row)) throw usage(`${where}: --as uses {${key}}, which is not a column (columns: ${Object.keys(row).join(", ")})`, "--as");
    return row[key]!;
  });
}

// The flags a template may use, per kind: the commands' own declarations (`mediagen asset start
// --help` …), plus, for generate and duplicate, the chained export's (--export, --avatar-model, and
// --export-format, which the command spells --format).
const FORMATS = ["vertical", "square", "ads", "horizontal", "custom"] as const;
const EXPORT_FORMAT_FLAG = {
  exportFormat: { flag: "--export-format <format>", type: "choice", choices: FORMATS, help: "" },
} as const satisfies FlagDecl;
const CHAIN_FLAGS = {
  export: { flag: "--export", type: "boolean", help: "" },
  avatarModel: { flag: "--avatar-model <model>", type: "string", help: "" },
  ...EXPORT_FORMAT_FLAG,
} as const satisfies FlagDecl;

/** Flags a template may not use: they read files or stdin, or steer a single command. */
const REFUSED = new Set(["--body", "--watch", "--download", "--dry-run", "--max-credits", "--yes", "-y", "--json", "--force", "--timeout", "--interval"]);

/** Parses `--flag value` words against a declaration (commander's spellings), without commander. */
function parseFlags<D extends FlagDecl>(set: FlagSet<D>, words: string[], where: string): { raw: Record<string, unknown>; operands: string[] } {
  const byName = new Map<string, [string, D[keyof D]]>();
  const negated = new Map<string, string>();
  for (const [key, spec] of Object.entries(set.decl)) {
    const name = longName(spec.flag);
    byName.set(name, [key, spec as D[keyof D]]);
    if (spec.type === "boolean" && spec.negate !== undefined) negated.set(`--no-${name.slice(2)}`, key);
  }
  const raw: Record<string, unknown> = {};
  const operands: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (!w.startsWith("-") || w === "-") {
      operands.push(w);
      continue;
    }
    const eq = w.indexOf("=");
    const name = eq > 0 && w.startsWith("--") ? w.slice(0, eq) : w;
    if (REFUSED.has(name)) throw usage(`${where}: --as cannot use ${name} (the batch decides it)`, "--as");
    if (name === "--simulate") {
      const value = eq > 0 ? w.slice(eq + 1) : words[++i];
      if (value === undefined) throw usage(`${where}: --simulate needs a value`, "--as");
      raw.__simulate = value;
      continue;
    }
    const neg = negated.get(name);
    if (neg !== undefined) {
      raw[neg] = false;
      continue;
    }
    const found = byName.get(name);
    if (!found) {
      const shown = [...byName.entries()].filter(([, [, spec]]) => !spec.hidden && !REFUSED.has(longName(spec.flag))).map(([flag]) => flag);
      throw usage(`${where}: --as: unknown flag ${name} for this kind (flags: ${shown.join(" ")})`, "--as");
    }
    const [key, spec] = found;
    if (spec.type === "boolean") {
      raw[key] = eq > 0 ? w.slice(eq + 1) : true;
      continue;
    }
    const value = eq > 0 ? w.slice(eq + 1) : words[++i];
    if (value === undefined) throw usage(`${where}: --as: ${name} needs a value`, "--as");
    if (spec.type === "list") raw[key] = [...((raw[key] as string[] | undefined) ?? []), value];
    else raw[key] = value;
  }
  return { raw, operands };
}

export interface Template {
  kind: BatchKind;
  words: string[];
}

/** `asset --model {model} …` (also `asset start …`, `avatar create|edit …`, `export start …`). */
export function parseTemplate(template: string): Template {
  const words = splitWords(template);
  if (words[0] === "mediagen") words.shift();
  const kind = words.shift();
  if (kind === undefined || !(BATCH_KINDS as readonly string[]).includes(kind)) {
    throw usage(`--as: the template must start with one of ${BATCH_KINDS.join(", ")}, got ${JSON.stringify(kind ?? "")}`, "--as");
  }
  if ((kind === "asset" || kind === "export") && words[0] === "start") words.shift();
  if (kind === "avatar" && (words[0] === "create" || words[0] === "edit")) words.shift();
  return { kind: kind as BatchKind, words };
}

type Built = Omit<BatchLine, "line" | "hash" | "fields">;

async function buildRequest(t: Template, words: string[], where: string): Promise<Built> {
  const one = (set: FlagSet<FlagDecl>, maxOperands = 0) => {
    const { raw, operands } = parseFlags(set, words, where);
    if (operands.length > maxOperands) throw usage(`${where}: --as: unexpected word "${operands[maxOperands]}"`, "--as");
    const simulate = raw.__simulate as string | undefined;
    delete raw.__simulate;
    const values = set.values(raw) as Record<string, unknown>;
    return { body: set.request(values as never), values, operands, simulate };
  };
  const chained = (values: Record<string, unknown>) => {
    if (!values.export && values.avatarModel === undefined && values.exportFormat === undefined) return undefined;
    return {
      ...(values.exportFormat !== undefined ? { format: values.exportFormat } : {}),
      ...(values.avatarModel !== undefined ? { avatar_model: values.avatarModel } : {}),
    };
  };
  const withSim = <T extends object>(x: T, simulate: string | undefined) => ({ ...x, ...(simulate !== undefined ? { simulate } : {}) });
  switch (t.kind) {
    case "asset": {
      const { START_FLAGS } = await import("../../features/asset/client/cli.js");
      const { body, simulate } = one(START_FLAGS as unknown as FlagSet<FlagDecl>);
      return withSim({ kind: "asset", body }, simulate);
    }
    case "avatar": {
      const { CREATE_FLAGS, EDIT_FLAGS } = await import("../../features/avatar/client/cli.js");
      const edit = words.includes("--look");
      const { body, simulate } = one((edit ? EDIT_FLAGS : CREATE_FLAGS) as unknown as FlagSet<FlagDecl>);
      return withSim({ kind: "avatar", body }, simulate);
    }
    case "export": {
      const { EXPORT_FLAGS } = await import("../../features/export/client/cli.js");
      const { body, operands, simulate } = one(EXPORT_FLAGS as unknown as FlagSet<FlagDecl>, 1);
      if (operands[0] !== undefined) body.video_id = operands[0];
      return withSim({ kind: "export", body }, simulate);
    }
    case "generate": {
      const { GENERATE_FLAGS } = await import("../../features/generation/client/cli.js");
      const { body, values, simulate } = one(GENERATE_FLAGS.extend(CHAIN_FLAGS) as unknown as FlagSet<FlagDecl>);
      const exp = chained(values);
      return withSim({ kind: "generate", body, ...(exp ? { export: exp } : {}) }, simulate);
    }
    case "script": {
      const { SCRIPT_FLAGS } = await import("../../features/script/client/cli.js");
      const { body, simulate } = one(SCRIPT_FLAGS as unknown as FlagSet<FlagDecl>);
      return withSim({ kind: "script", body }, simulate);
    }
    case "duplicate": {
      const { DUPLICATE_FLAGS, duplicateBody } = await import("../../features/video/client/cli.js");
      const { values, operands, simulate } = one(DUPLICATE_FLAGS.extend(EXPORT_FORMAT_FLAG) as unknown as FlagSet<FlagDecl>, 1);
      // The command's own request (--look, or --avatar, its other name), from the same values.
      const body = duplicateBody(operands[0], values as Parameters<typeof duplicateBody>[1]);
      if (values.format !== undefined) values.exportFormat ??= values.format;
      const exp = chained(values);
      return withSim({ kind: "duplicate", body, ...(exp ? { export: exp } : {}) }, simulate);
    }
  }
}

/** The `{column}`s a template uses, in order, each once. */
function columnsOf(t: Template): string[] {
  const names = t.words.flatMap((w) => [...w.matchAll(/\{\{|\}\}|\{([^{}]*)\}/g)].flatMap((m) => (m[1] !== undefined ? [m[1].trim()] : [])));
  return [...new Set(names)];
}

/**
 * A text file of one value per line (`prompts.txt`: one prompt a line) through the template: each
 * line fills the template's one `{column}`; blank lines and lines starting with `#` are skipped. The
 * line number is the file's. (Read as a CSV, its first prompt would be taken for a header.)
 */
export async function parseLinesBatch(text: string, template: string, from: string): Promise<BatchLine[]> {
  const t = parseTemplate(template);
  const cols = columnsOf(t);
  if (cols.length !== 1) {
    throw usage(
      `--as: ${from} is read as one value per line, so the template must use one {column} (it uses ${cols.length ? cols.map((c) => `{${c}}`).join(", ") : "none"}); for several values per request, use a CSV whose first row names the columns`,
      "--as",
    );
  }
  const rows = text
    .split(/\r?\n/)
    .map((value, i) => ({ n: i + 1, value: value.trim() }))
    .filter((r) => r.value !== "" && !r.value.startsWith("#"));
  return buildRows(
    t,
    rows.map((r) => ({ n: r.n, row: { [cols[0]!]: r.value }, where: `${from}:${r.n}` })),
  );
}

/** CSV rows through the template: one request per data row (the first row names the columns). */
export async function parseCsvBatch(text: string, template: string, from: string): Promise<BatchLine[]> {
  const t = parseTemplate(template);
  const rows = parseCsv(text);
  if (!rows.length) return [];
  const header = rows[0]!.map((h) => h.trim());
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup !== undefined) throw usage(`${from}: the column "${dup}" appears twice in the header`);
  const data: { n: number; row: Record<string, string>; where: string }[] = [];
  for (let r = 1; r < rows.length; r++) {
    const where = `${from} row ${r}`;
    const cells = rows[r]!;
    if (cells.length !== header.length) throw usage(`${where}: ${cells.length} fields, the header has ${header.length}`);
    data.push({ n: r, row: Object.fromEntries(header.map((h, i) => [h, cells[i]!])), where });
  }
  return buildRows(t, data);
}

async function buildRows(t: Template, data: readonly { n: number; row: Record<string, string>; where: string }[]): Promise<BatchLine[]> {
  const out: BatchLine[] = [];
  for (const { n: r, row, where } of data) {
    const words = t.words.map((w) => fillWord(w, row, where));
    let built: Built;
    try {
      built = await buildRequest(t, words, where);
    } catch (e) {
      if (e instanceof CliError && !e.message.startsWith(where)) throw usage(`${where}: ${e.message}`, e.field ?? "--as");
      throw e;
    }
    out.push(finish({ ...built, line: r, fields: row }, where));
  }
  return out;
}
