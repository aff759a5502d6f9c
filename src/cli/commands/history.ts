/**
 * `mediagen history` (`ls`): the jobs this machine started, from the journal (src/cli/journal.ts),
 * most recent first. The service has no list of jobs; this is the CLI's own record, like a shell's.
 */
import type { Command } from "commander";
import { CliError, EXIT, type CommandModule, type ContextGetter } from "../types.js";
import type { CliContext } from "../context.js";
import { examples } from "../help-text.js";
import { table, widthOf } from "../output.js";
import { defineFlags, type FlagInput } from "../flags.js";
import { JOB_KINDS, type HistoryEntry } from "../journal.js";
import { lookStateText } from "../../features/avatar/states.js";

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

function historyTable(ctx: CliContext, rows: HistoryEntry[]): string[] {
  return table(
    rows,
    [
      { header: "started", get: (j) => when(j.started_at), whole: true, optional: true },
      { header: "kind", get: (j) => j.kind },
      { header: "id", get: (j) => j.id, id: true },
      { header: "target", get: (j) => j.target },
      { header: "model", get: (j) => j.model, optional: true },
      { header: "credits", get: (j) => j.cost, align: "right" },
      { header: "status", get: (j) => (j.kind === "look" ? lookStateText(j.status) : j.status) },
      { header: "video", get: (j) => (j.video_id && j.video_id !== j.id ? j.video_id : null), id: true, optional: true },
      { header: "saved", get: (j) => j.saved, id: true },
    ],
    widthOf(ctx.io),
  );
}

/** `--show`: each saved file drawn, then its id and path (nothing at all where pictures cannot be drawn). */
async function showSaved(ctx: CliContext, rows: readonly HistoryEntry[]): Promise<void> {
  for (const j of rows) {
    if (j.saved && (await ctx.showPicture(j.saved))) ctx.io.out(`  ${j.id}  ${j.saved}`);
  }
}

export const command: CommandModule = {
  register(history: Command, getContext: ContextGetter) {
    FLAGS.addTo(history).action(async (opts: FlagInput<typeof FLAGS>, cmd: Command) => {
      const ctx = getContext(cmd) as CliContext;
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
          const lines = historyTable(ctx, r);
          if (all.length > r.length) ctx.io.info(`${all.length - r.length} older job(s) not shown (--limit 0 shows all).`);
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
