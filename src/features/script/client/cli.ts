/**
 * `mediagen script`: POST /script/generate. stdout carries the script text alone, so it pipes into
 * other commands (`mediagen script --prompt … | mediagen generate --script -`); the cost is talk on
 * stderr; `--json` prints the service's object.
 */
import type { Command } from "commander";
import { CliError, EXIT } from "../../../cli/types.js";
import type { CommandModule } from "../../../cli/command-context.js";
import { examples } from "../../../cli/help-text.js";
import { isCI } from "../../../cli/io.js";
import { collect, givenFieldFlags, overlayFlags, parseSimulate, type FlagField } from "../../../cli/parse.js";
import { formatCredits } from "../../../contract/credits.js";
import type { ScriptGenerateResponse } from "../contract.js";
import type { CommandContext } from "../../../cli/command-context.js";
import { addStartGuardOptions } from "../../../cli/cost-guard.js";

export interface ScriptFlags {
  prompt?: string;
  duration?: string;
  url?: string[];
  webSearch?: boolean;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) {
    throw new CliError(`--duration: expected a number of seconds, got "${value}"`, EXIT.usage, "invalid_value", "--duration");
  }
  return n;
}

const FIELDS: readonly FlagField<ScriptFlags>[] = [
  ["prompt", "prompt"],
  ["duration", "duration", parseSeconds],
  ["url", "urls"],
  ["webSearch", "webSearch"],
];

/** Flags over a `--body`: a flag replaces the body's field. `--prompt -` is resolved before this. */
export function scriptBody(flags: ScriptFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  return overlayFlags(flags, FIELDS, body);
}

async function readStdinText(ctx: CommandContext, what: string): Promise<string> {
  const stdin = ctx.io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  if (stdin.isTTY) {
    if (!ctx.opts.input || isCI(process.env)) {
      throw new CliError(`${what}: stdin is a terminal and input is off (--no-input or CI); pipe the text in`, EXIT.usage, "usage_error", what);
    }
    ctx.io.warn("Reading the prompt from stdin (end with Ctrl-D)…");
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8").replace(/\s+$/, "");
}

async function askPrompt(ctx: CommandContext): Promise<string> {
  const { input } = await import("@inquirer/prompts");
  return input({ message: "What is the video about?", required: true }, { input: ctx.io.stdin, output: ctx.io.stderr });
}

const credits = (n: number | null | undefined) => (typeof n === "number" ? `${formatCredits(n)} credit${n === 1 ? "" : "s"}` : "? credits");

export const command: CommandModule = {
  register(script: Command, getContext) {
    addStartGuardOptions(script)
      .option("--prompt <text>", "what the script is about (required; up to 10,000 characters); - reads it from stdin, @file from a file")
      .option("--duration <seconds>", "length of the script when spoken, 10 to 600 seconds (default 60)")
      .option("--url <url>", "a web page to draw on (repeatable, up to 10; +0.1 credit each)", collect)
      .option("--web-search", "let the service search the web (+0.1 credit)")
      .option("--body <file>", "request body as JSON from a file or - (stdin); flags override its fields")
      .option("--simulate <mode>", "local instance only: fail or fail:<CODE> makes the generation fail (refunded)")
      .action(async (opts: ScriptFlags & { body?: string; simulate?: string; dryRun?: boolean; maxCredits?: string; yes?: boolean }, cmd: Command) => {
        const ctx = getContext(cmd);
        if (opts.prompt === "-" && opts.body === "-") {
          throw new CliError("--prompt - and --body - cannot both read stdin", EXIT.usage, "usage_error", "--prompt");
        }
        const simulate = parseSimulate(opts.simulate);
        const flags: ScriptFlags = { ...opts };
        if (opts.prompt === "-") flags.prompt = await readStdinText(ctx, "--prompt -");
        else if (opts.prompt?.startsWith("@") && opts.prompt.length > 1) {
          flags.prompt = await (await import("../../../cli/text-arg.js")).fileOrText(opts.prompt, "--prompt", async () => "");
        }
        const body = scriptBody(flags, opts.body ? await ctx.readBody(opts.body) : {});
        if (body.prompt === undefined) {
          if (!ctx.io.canPrompt) throw new CliError("missing required flag --prompt", EXIT.usage, "missing_field", "prompt");
          body.prompt = await askPrompt(ctx);
        }
        const given = givenFieldFlags(flags, FIELDS);
        ctx.explainWith?.((field) => (field === "urls" && flags.url?.length ? "--url" : given(field)), body);
        const engine = await ctx.engine();
        const { guardStart, startGuardFrom } = await import("../../../cli/cost-guard.js");
        const guard = startGuardFrom(opts);
        if ((await guardStart(ctx, engine, "scriptGenerate", body, guard)) === "dry-run") return;
        const res = await engine.scriptGenerate(body, simulate ? { simulate } : {});
        if (!ctx.opts.json) {
          ctx.io.info(`Script: ${credits(res.cost)}`);
          const n = res.extractedImages?.length ?? 0;
          if (n) ctx.io.info(`${n} image${n === 1 ? "" : "s"} found on the pages (listed by --json in extractedImages)`);
        }
        ctx.print(
          res,
          (r: ScriptGenerateResponse) => [r.script],
          (r) => [r.script],
        );
      });
    examples(script, [
      'mediagen script --prompt "Write a script about the benefits of green tea" --duration 45',
      "mediagen script --prompt \"Summarise our launch\" --url https://example.com/launch --json | jq -r '.extractedImages[]'",
      "cat brief.txt | mediagen script --prompt - --duration 90 > script.txt",
      'mediagen script --prompt "Three tips for better sleep" | mediagen generate --script -',
      "mediagen script --body request.json --web-search",
    ]);
  },
};
