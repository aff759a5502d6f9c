/**
 * `mediagen history` (`ls`): the jobs this machine started, from the journal (src/cli/journal.ts),
 * most recent first. The service has no list of jobs; this is the CLI's own record, like a shell's.
 */
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandModule, ContextGetter } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { cell, table, visibleLength, widthOf, wrapCell } from "../output.js";
import { defineFlags, type FlagInput } from "../flags.js";
import { JOB_KINDS, type HistoryEntry } from "../journal.js";
import { lookStateText } from "../../features/avatar/client/states.js";
import { counted } from "../../engine/words.js";

const FLAGS = defineFlags({
  kind: { flag: "--kind <kind>", type: "choice", choices: JOB_KINDS, help: `only jobs of this kind: ${JOB_KINDS.join(", ")}` },
  limit: { flag: "--limit <n>", type: "integer", help: "at most this many jobs, the most recent (default 20; 0: all)" },
  refresh: { flag: "--no-refresh", type: "boolean", help: "show the history as recorded (default: jobs still running are read again from their target, at most 10)" },
  show: { flag: "--show", type: "boolean", help: "draw each listed job's saved picture (a video's first frame) in the terminal, where it can (kitty, iTerm2)" },
});

const DEFAULT_LIMIT = 20;

/** "2026-03-01 14:05" in local time: short enough for a table, `--json` has the ISO time. */
function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * "/home/me/projects/out/asset-1.png" → "/home/me/…/asset-1.png": the start and the end kept, the
 * file name whole when there is room for it and a few characters of the start.
 */
export function shortenMiddle(s: string, width: number): string {
  if (s.length <= width) return s;
  if (width <= 1) return "…";
  const name = s.length - Math.max(s.lastIndexOf("/"), s.lastIndexOf("\\"));
  const tail = Math.max(Math.ceil((width - 1) * 0.6), Math.min(name, width - 1 - 6));
  return `${s.slice(0, width - 1 - tail)}…${s.slice(s.length - tail)}`;
}

const statusOf = (j: HistoryEntry) => (j.kind === "look" ? lookStateText(j.status) : j.status);
const creditsOf = (j: HistoryEntry) => (j.cost === null || j.cost === undefined ? "-" : `${j.cost} credit${j.cost === 1 ? "" : "s"}`);
/** The path a saved file can be shortened to, at the least. */
const MIN_SAVED = 16;

/** The history table; `saved` gives the SAVED column's cells (null: no such column). */
function historyTable(rows: HistoryEntry[], width: number, saved: ((j: HistoryEntry) => string | null) | null): string[] {
  return table(
    rows,
    [
      { header: "started", get: (j) => when(j.started_at), whole: true, optional: true },
      { header: "kind", get: (j) => j.kind },
      { header: "id", get: (j) => j.id, id: true },
      { header: "target", get: (j) => j.target, optional: true },
      { header: "model", get: (j) => j.model, optional: true },
      { header: "credits", get: (j) => j.cost, align: "right" },
      { header: "status", get: statusOf },
      { header: "video", get: (j) => (j.video_id && j.video_id !== j.id ? j.video_id : null), whole: true, optional: true },
      ...(saved ? [{ header: "saved", get: saved, id: true }] : []),
    ],
    width,
  );
}

/**
 * The history fitted to the terminal: the table when it fits; else the table without its optional
 * columns and with saved paths shortened from the middle; on a terminal too narrow even for that,
 * one block per job (its id whole, then kind, status and credits, then the saved path).
 */
function historyLines(rows: HistoryEntry[], width: number): string[] {
  // Measured without the colour's escapes (colour never changes the layout), and a table only counts
  // when it kept what a person reads a job by: its CREDITS and STATUS.
  const fits = (lines: string[]) => lines.every((l) => visibleLength(l) <= width) && /CREDITS/.test(lines[0] ?? "") && /STATUS/.test(lines[0] ?? "");
  const full = historyTable(rows, width, (j) => j.saved);
  if (!Number.isFinite(width) || fits(full)) return full;
  // KIND, ID, CREDITS and STATUS at their natural width, two spaces apart, then SAVED in what is left.
  const natural = (header: string, get: (j: HistoryEntry) => unknown) => Math.max(header.length, ...rows.map((j) => cell(get(j)).length));
  const coreWidth = natural("kind", (j) => j.kind) + natural("id", (j) => j.id) + natural("credits", (j) => j.cost) + natural("status", statusOf) + 3 * 2;
  const room = width - coreWidth - 2;
  if (room >= MIN_SAVED) {
    const shortened = historyTable(rows, width, (j) => (j.saved ? shortenMiddle(j.saved, room) : null));
    if (fits(shortened)) return shortened;
  }
  return rows.flatMap((j) => {
    const about = `  ${j.kind} · ${statusOf(j)} · ${creditsOf(j)}`;
    return [j.id, ...wrapCell(about, width).map((l, i) => (i ? `  ${l.trimStart()}` : l)), ...(j.saved ? [`  ${shortenMiddle(j.saved, width - 2)}`] : [])];
  });
}

/** `--show`: each saved file drawn, then its id and path (nothing at all where pictures cannot be drawn). */
async function showSaved(ctx: CommandContext, rows: readonly HistoryEntry[]): Promise<void> {
  for (const j of rows) {
    if (j.saved && (await ctx.showPicture(j.saved))) ctx.io.out(`  ${j.id}  ${j.saved}`);
  }
}

export const command: CommandModule = {
  register(history: Command, getContext: ContextGetter) {
    FLAGS.addTo(history).action(async (opts: FlagInput<typeof FLAGS>, cmd: Command) => {
      const ctx = getContext(cmd);
      const flags = FLAGS.values(opts);
      if (flags.limit !== undefined && flags.limit < 0) throw new CliError("--limit: expected 0 or more", EXIT.usage, "invalid_value", "--limit");
      const limit = flags.limit ?? DEFAULT_LIMIT;
      const { readHistory } = await import("../journal.js");
      // --target filters when given on the line (MEDIAGEN_TARGET or a profile does not: history spans targets).
      const target = ctx.opts.target;
      const all = readHistory(ctx.home).filter((j) => (!flags.kind || j.kind === flags.kind) && (!target || j.target === target));
      const rows = limit === 0 ? all : all.slice(0, limit);
      if (flags.refresh !== false) await (await import("../history-refresh.js")).refreshRows(ctx, rows);
      ctx.print(
        rows,
        (r) => {
          if (!r.length) {
            ctx.io.info(flags.kind || target ? "No jobs match." : "No jobs started from this machine yet.");
            return [];
          }
          const lines = historyLines(r, widthOf(ctx.io));
          if (all.length > r.length) ctx.io.info(`${counted(all.length - r.length, "older job")} not shown (--limit 0 shows all).`);
          return lines;
        },
        (r) => r.map((j) => j.id),
      );
      if (flags.show) await showSaved(ctx, rows);
    });
    examples(history, [
      "mediagen history",
      "mediagen history --no-refresh --json",
      "mediagen ls --kind asset --limit 5",
      "mediagen history --target hosted --json | jq -r '.[] | select(.status == \"completed\") | .id'",
      "mediagen download $(mediagen ls --kind asset --limit 1 -q) --dir out/",
    ]);
  },
};
