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
import { BODY_FLAG, SIMULATE_FLAG, defineFlags, type FlagInput } from "../../../cli/flags.js";
import { formatCredits } from "../../../contract/credits.js";
import type { ScriptGenerateResponse } from "../contract.js";
import type { CommandContext } from "../../../cli/command-context.js";
import { addStartGuardOptions } from "../../../cli/cost-guard.js";

/** The flags of `mediagen script`, declared once: the command and `mediagen batch` read them. */
export const SCRIPT_FLAGS = defineFlags({
  prompt: {
    flag: "--prompt <text>",
    type: "string",
    help: "what the script is about (required; up to 10,000 characters); - reads it from stdin, @file from a file",
    field: "prompt",
  },
  duration: { flag: "--duration <seconds>", type: "number", help: "length of the script when spoken, 10 to 600 seconds (default 60)", field: "duration" },
  url: { flag: "--url <url>", type: "list", help: "a web page to draw on (repeatable, up to 10; +0.1 credit each)", field: "urls" },
  webSearch: { flag: "--web-search", type: "boolean", help: "let the service search the web (+0.1 credit)", field: "webSearch" },
  body: BODY_FLAG,
  simulate: SIMULATE_FLAG,
});

export type ScriptFlags = ReturnType<typeof SCRIPT_FLAGS.values>;

/** Flags over a `--body`: a flag replaces the body's field. `--prompt -` is resolved before this. */
export function scriptBody(flags: ScriptFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  return SCRIPT_FLAGS.request(flags, body);
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
    SCRIPT_FLAGS.addTo(addStartGuardOptions(script)).action(
      async (opts: FlagInput<typeof SCRIPT_FLAGS> & { dryRun?: boolean; maxCredits?: string; yes?: boolean }, cmd: Command) => {
        const ctx = getContext(cmd);
        if (opts.prompt === "-" && opts.body === "-") {
          throw new CliError("--prompt - and --body - cannot both read stdin", EXIT.usage, "usage_error", "--prompt");
        }
        const flags = SCRIPT_FLAGS.values(opts);
        const simulate = flags.simulate;
        if (opts.prompt === "-") flags.prompt = await readStdinText(ctx, "--prompt -");
        else if (opts.prompt?.startsWith("@") && opts.prompt.length > 1) {
          flags.prompt = await (await import("../../../cli/text-arg.js")).fileOrText(opts.prompt, "--prompt", async () => "");
        }
        const body = scriptBody(flags, opts.body ? await ctx.readBody(opts.body) : {});
        if (body.prompt === undefined) {
          if (!ctx.io.canPrompt) throw new CliError("missing required flag --prompt", EXIT.usage, "missing_field", "prompt");
          body.prompt = await askPrompt(ctx);
        }
        ctx.explainWith?.(SCRIPT_FLAGS.givenFlags(flags), body);
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
      },
    );
    examples(script, [
      'mediagen script --prompt "Write a script about the benefits of green tea" --duration 45',
      "mediagen script --prompt \"Summarise our launch\" --url https://example.com/launch --json | jq -r '.extractedImages[]'",
      "cat brief.txt | mediagen script --prompt - --duration 90 > script.txt",
      'mediagen script --prompt "Three tips for better sleep" | mediagen generate --script -',
      "mediagen script --body request.json --web-search",
    ]);
  },
};
