/**
 * `mediagen batch run|price <file.jsonl|file.csv|->`: many requests from a file, under the service's
 * rate limit and a credit budget, resumable after a crash. The work is in src/cli/batch/ (input,
 * pacer, manifest, price, runner), loaded when a subcommand runs; this module only declares them.
 * It is one of the doors into the local target (dependency-cruiser's DOOR_KEEPERS): after a crash
 * it asks the local instance whether a start landed (src/features/started-jobs.ts).
 */
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandModule, ContextGetter } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { defineFlags, type FlagInput } from "../flags.js";

const INPUT_FLAGS = defineFlags({
  as: {
    flag: "--as <template>",
    type: "string",
    help: "a CSV's command template, e.g. 'asset --type image --model {model} --prompt {prompt}' ({column} is filled from each row; no shell)",
  },
});

const RUN_FLAGS = INPUT_FLAGS.extend({
  parallel: { flag: "--parallel <n>", type: "integer", help: "lines in progress at once (default 4)" },
  out: { flag: "--out <dir>", type: "string", help: "where results are saved (default: the current directory)" },
  name: {
    flag: "--name <template>",
    type: "string",
    help: "file name of each result, without extension: {line} {kind} {id} {index} and the line's fields (default {line}-{kind}-{id})",
  },
  manifest: { flag: "--manifest <file>", type: "string", help: "the manifest (default <out>/<input name>.manifest.jsonl)" },
  maxCredits: {
    flag: "--max-credits <n>",
    type: "number",
    help: "never start a line that would take the batch's credits over n (the line is skipped_budget; cheaper lines still run)",
  },
  retryFailed: { flag: "--retry-failed", type: "boolean", help: "run again the lines that failed in an earlier run" },
  retryUnknown: { flag: "--retry-unknown", type: "boolean", help: "send again starts whose outcome is unknown (hosted target, after a crash): may pay twice" },
  timeout: { flag: "--timeout <duration>", type: "string", help: "stop waiting for one job after this long (default 20m); the line stays resumable" },
  interval: { flag: "--interval <duration>", type: "string", help: "poll interval (default: the spec's schedules; faster on the local target)" },
});

const DEFAULT_PARALLEL = 4;
const DEFAULT_NAME = "{line}-{kind}-{id}";
const DEFAULT_TIMEOUT_MS = 20 * 60_000;

const usage = (flag: string, message: string, code = "invalid_value") => new CliError(`${flag}: ${message}`, EXIT.usage, code, flag);

async function readInput(ctx: CommandContext, file: string): Promise<string> {
  if (file === "-") {
    if ((ctx.io.stdin as { isTTY?: boolean }).isTTY) throw usage("<file>", "stdin is a terminal; pipe the lines in or name a file", "usage_error");
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    throw usage("<file>", `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, "usage_error");
  }
}

async function loadLines(ctx: CommandContext, file: string, template: string | undefined) {
  const input = await import("../batch/input.js");
  const text = await readInput(ctx, file);
  const from = file === "-" ? "stdin" : file;
  // A .txt is one value per line (a prompt a line), not a CSV whose first line would be its header.
  if (template !== undefined) return /\.txt$/i.test(file) ? input.parseLinesBatch(text, template, from) : input.parseCsvBatch(text, template, from);
  if (/\.txt$/i.test(file))
    throw usage(
      "--as",
      `${file} is one value per line: give --as '<kind> --flag {column} …' (for example --as 'asset --type image --model imgA-4 --prompt {prompt}')`,
      "missing_field",
    );
  if (/\.csv$/i.test(file)) throw usage("--as", `${file} is a CSV: give --as '<kind> --flag {column} …' to map its rows to requests`, "missing_field");
  const lines = await input.readJsonlBatch(text, from);
  if (!lines.length) throw usage("<file>", `${from} has no requests`, "usage_error");
  return lines;
}

function register(group: Command, getContext: ContextGetter): void {
  const run = RUN_FLAGS.addTo(
    group
      .command("run <file>")
      .description("Run every request of a JSONL file (or a CSV with --as) under the rate limit, save the results, resumable: run it again to go on"),
  ).action(async (file: string, raw: FlagInput<typeof RUN_FLAGS>, cmd: Command) => {
    const ctx = getContext(cmd);
    const o = RUN_FLAGS.values(raw);
    const { parseDuration } = await import("../parse.js");
    const parallel = o.parallel ?? DEFAULT_PARALLEL;
    if (!(parallel >= 1 && parallel <= 64)) throw usage("--parallel", `expected 1 to 64, got ${parallel}`);
    if (o.maxCredits !== undefined && !(o.maxCredits >= 0)) throw usage("--max-credits", `expected a number of credits, got ${o.maxCredits}`);
    const timeoutMs = o.timeout !== undefined ? parseDuration(o.timeout, "--timeout") : DEFAULT_TIMEOUT_MS;
    const intervalMs = o.interval !== undefined ? parseDuration(o.interval, "--interval") : ctx.pollInterval();
    if (intervalMs !== undefined && intervalMs < 100) throw usage("--interval", "at least 100ms");
    const name = o.name ?? DEFAULT_NAME;
    if (name.includes("/") || name.includes("\\")) throw usage("--name", "a file name, not a path (use --out for the directory)");
    const lines = await loadLines(ctx, file, o.as);
    const { prepareDir } = await import("../download.js");
    const out = prepareDir(o.out ?? ".", "--out");
    const manifestPath = path.resolve(o.manifest ?? path.join(out, `${file === "-" ? "stdin" : path.basename(file)}.manifest.jsonl`));
    const { runBatch } = await import("../batch/command.js");
    await runBatch(ctx, lines, {
      parallel,
      out,
      name,
      manifestPath,
      input: file,
      timeoutMs,
      ...(intervalMs !== undefined ? { intervalMs } : {}),
      ...(o.maxCredits !== undefined ? { maxCredits: o.maxCredits } : {}),
      retryFailed: o.retryFailed === true,
      retryUnknown: o.retryUnknown === true,
      findStarted: async () => {
        // The local instance can say whether a start announced before a crash landed.
        if (ctx.runtime.engine || (await ctx.target()) !== "local") return undefined;
        const instance = await ctx.localInstance();
        const { findStartedJob } = await import("../../features/local.js");
        const apiKey = ctx.resolve().key ?? instance.defaultKey();
        return (op, since, body, claimed) => Promise.resolve(findStartedJob(instance, { op, apiKey, since, body, claimed }));
      },
    });
  });
  examples(run, [
    "mediagen batch run clips.jsonl --out clips/ --parallel 8",
    "mediagen batch run products.csv --as 'asset --type image --model imgA-4 --prompt {prompt}' --out shots/ --name '{line}-{sku}'",
    "mediagen batch run clips.jsonl --out clips/ --max-credits 200 --json > events.ndjson",
    "mediagen batch run clips.jsonl --out clips/ --retry-failed",
  ]);

  const price = INPUT_FLAGS.addTo(group.command("price <file>").description("Print what each line and the whole batch would cost; nothing is started")).action(
    async (file: string, raw: FlagInput<typeof INPUT_FLAGS>, cmd: Command) => {
      const ctx = getContext(cmd);
      const o = INPUT_FLAGS.values(raw);
      const lines = await loadLines(ctx, file, o.as);
      const { priceBatch } = await import("../batch/command.js");
      await priceBatch(ctx, lines);
    },
  );
  examples(price, ["mediagen batch price clips.jsonl", "mediagen batch price products.csv --as 'asset --type image --model imgA-4 --prompt {prompt}' --json"]);
}

export const command: CommandModule = {
  register(group, getContext) {
    register(group, getContext);
    examples(group, [
      "mediagen batch price clips.jsonl",
      "mediagen batch run clips.jsonl --out clips/ --parallel 8",
      "mediagen batch run clips.jsonl --out clips/  # again: resumes",
    ]);
  },
};
