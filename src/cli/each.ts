/**
 * Commands that read several ids at once (`asset status A B C`): every id is read, every result
 * that was read is printed, and each id that failed is reported on stderr in its turn (with
 * `--json`, also its `{"error":…}` line). The command then exits with the first failure's code, so a
 * bad id among good ones neither hides the good results nor goes unnoticed.
 */
import { serviceBody } from "../engine/service-body.js";
import type { CommandContext } from "./command-context.js";
import { CliError } from "./types.js";
import { describeError, renderError } from "./errors.js";
import { toJson } from "./output.js";
import type { JobKind } from "./journal.js";

export interface EachSpec<T> {
  ids: readonly string[];
  /** Reads one id; a rejection is that id's failure. */
  read(id: string): Promise<T>;
  /** "asset 65f…": names an id in its error message when the service's message does not. */
  label(id: string): string;
  /** Human lines for one result. */
  human(value: T): string[];
  /** The journal's kind: the status read is recorded for the jobs it knows (history). */
  journal?: JobKind;
  /** The id of a result, for the journal (the id asked for when the result does not say). */
  idOf?(value: T): string | null | undefined;
}

/** Names the id in an error's message (the service's may not), keeping the error's kind and code. */
function naming(e: unknown, id: string, label: string): unknown {
  const err = e as { message?: unknown };
  if (err && typeof err === "object" && typeof err.message === "string" && !err.message.includes(id)) {
    try {
      err.message = `${label}: ${err.message}`;
    } catch {
      // a frozen error keeps its message
    }
  }
  return e;
}

export async function printEach<T>(ctx: CommandContext, spec: EachSpec<T>): Promise<void> {
  const values: T[] = [];
  const asked: string[] = [];
  const failures: unknown[] = [];
  for (const id of spec.ids) {
    try {
      const v = await spec.read(id);
      values.push(v);
      asked.push(id);
      if (!ctx.opts.json) {
        if (values.length > 1 && !ctx.opts.quiet) ctx.io.out("");
        // --quiet prints the id: the one asked for when the answer does not carry it.
        ctx.print(v, spec.human, (r) => (spec.idOf?.(r) ? [spec.idOf(r)!] : [id]));
      }
    } catch (e) {
      const err = naming(e, id, spec.label(id));
      // Reported in its turn (stderr), so it reads next to the results around it.
      renderError(err, ctx.io, ctx.opts, await ctx.explain(err));
      failures.push(err);
    }
  }
  // One JSON document: the object for one id asked, an array for several (of the results read).
  if (ctx.opts.json && values.length) ctx.io.out(toJson(spec.ids.length === 1 ? serviceBody(values[0]) : values.map(serviceBody)));
  if (spec.journal && spec.idOf) {
    const kind = spec.journal;
    const idOf = spec.idOf;
    await ctx.recordUpdates(
      values.flatMap((v, i) => {
        const status = (v as { status?: unknown }).status;
        return typeof status === "string" ? [{ kind, id: idOf(v) || asked[i]!, status }] : [];
      }),
    );
  }
  if (!failures.length) return;
  const first = describeError(failures[0]);
  const done = new CliError(
    failures.length === 1 ? first.message : `${failures.length} of ${spec.ids.length} ids could not be read; first: ${first.message}`,
    first.exitCode,
    first.code,
    first.field ?? undefined,
  );
  done.shown = true;
  throw done;
}
