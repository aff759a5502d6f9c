/**
 * `mediagen local faults add|list|clear`: faults on demand on the local instance (rules stored in
 * the instance, so `serve` and in-process commands on the same home see them). The rules are checked
 * by the instance (src/local/fault-rule.ts), the same way for this command, `serve --faults` and the
 * admin HTTP path.
 */
import fs from "node:fs";
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { table, widthOf } from "../output.js";
import { defineFlags, type FlagInput } from "../flags.js";

type Getter = (cmd: Command) => CommandContext;

/**
 * `faults add`'s flags, handed to the rule as given: the instance checks them (src/local/fault-rule.ts),
 * as it does for `serve --faults` and the admin path, with the same messages.
 */
const ADD_FLAGS = defineFlags({
  status: { flag: "--status <n>", type: "string", help: "error: the HTTP status (400, 401, 402, 403, 404, 429, 500, 503)" },
  code: { flag: "--code <code>", type: "string", help: "error: the spec's code for the operation; job_fail: the job's error code" },
  message: { flag: "--message <text>", type: "string", help: "error: the message in the body" },
  retryAfter: {
    flag: "--retry-after <seconds>",
    type: "string",
    help: "error: answer with Retry-After: <seconds> (a 429's X-RateLimit-Reset says the same time)",
  },
  ms: { flag: "--ms <duration>", type: "string", help: "latency (500ms, or a range 200-800), job_stall, webhook_delay, webhook_reorder hold" },
  step: {
    flag: "--step <step>",
    type: "string",
    help: "job_fail: the step it fails at (generation: VOICE_GENERATION…; export: render-audio, avatar, render)",
  },
  by: { flag: "--by <points>", type: "string", help: "progress_backwards: how many points progress drops (default 30)" },
  probability: { flag: "--probability <p>", type: "string", help: "fire with this probability (0 < p <= 1, default 1)" },
  times: { flag: "--times <n>", type: "string", help: "fire for the next N matches only" },
  expiresIn: { flag: "--expires-in <duration>", type: "string", help: "the rule ends after this long (30s, 10m, 2h)" },
  space: { flag: "--space <space_id>", type: "string", help: "only requests of this space" },
  key: { flag: "--key <key_id>", type: "string", help: "only requests with this key (its id, from `local keys list`)" },
  file: { flag: "--file <file>", type: "string", help: 'add the rules of a JSON file (an array, or {"rules": [...]})' },
});
type AddFlags = FlagInput<typeof ADD_FLAGS>;

interface RuleView {
  id: string;
  op: string;
  action: string;
  params: Record<string, unknown>;
  probability: number;
  remaining: number | null;
  hits: number;
  state: string;
  expires_at: string | null;
  space_id: string | null;
  key_id: string | null;
}

/** Fault rules from a JSON file: an array of rules or `{"rules": [...]}` (what `serve --faults` reads too). */
export function readFaultsFile(file: string, flag: string): unknown[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new CliError(`${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.usage, "usage_error", flag);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new CliError(`${flag}: ${file} is not valid JSON (${(e as Error).message})`, EXIT.usage, "invalid_json", flag);
  }
  const rules = Array.isArray(data)
    ? data
    : data && typeof data === "object" && Array.isArray((data as { rules?: unknown }).rules)
      ? (data as { rules: unknown[] }).rules
      : undefined;
  if (!rules) throw new CliError(`${flag}: ${file} must hold an array of fault rules or {"rules": [...]}`, EXIT.usage, "invalid_value", flag);
  return rules;
}

function paramsText(r: RuleView): string {
  return Object.entries(r.params)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");
}

function rulesTable(ctx: CommandContext, rules: RuleView[]): string[] {
  if (!rules.length) {
    ctx.io.info("No fault rules.");
    return [];
  }
  return table(
    rules,
    [
      { header: "id", get: (r) => r.id, id: true },
      { header: "op", get: (r) => r.op },
      { header: "action", get: (r) => r.action },
      { header: "params", get: (r) => paramsText(r) },
      { header: "left", get: (r) => (r.remaining === null ? "∞" : r.remaining), align: "right" },
      { header: "hits", get: (r) => r.hits, align: "right" },
      { header: "p", get: (r) => r.probability, align: "right", optional: true },
      { header: "state", get: (r) => r.state },
      { header: "expires", get: (r) => r.expires_at, optional: true, whole: true },
    ],
    widthOf(ctx.io),
  );
}

function ruleFromFlags(op: string, action: string, f: AddFlags): Record<string, unknown> {
  const rule: Record<string, unknown> = { op, action };
  const copy: [keyof AddFlags, string][] = [
    ["status", "status"],
    ["code", "code"],
    ["message", "message"],
    ["ms", "ms"],
    ["step", "step"],
    ["by", "by"],
    ["probability", "probability"],
    ["times", "times"],
    ["expiresIn", "expires_in"],
    ["retryAfter", "retry_after"],
    ["space", "space"],
    ["key", "key"],
  ];
  for (const [flag, field] of copy) if (f[flag] !== undefined) rule[field] = f[flag];
  return rule;
}

export function registerFaults(local: Command, get: Getter): void {
  const faults = local.command("faults").description("Faults on demand: make operations fail, wait or drop, jobs fail or stall, webhooks drop, repeat or wait");
  examples(faults, [
    "mediagen local faults add assetStatus error --status 503 --times 2",
    "mediagen local faults add '*' latency --ms 200-800 --probability 0.5",
    "mediagen local faults list",
    "mediagen local faults clear",
  ]);

  const add = ADD_FLAGS.addTo(
    faults
      .command("add")
      .description("Add a fault rule (or the rules of --file)")
      .argument("[op]", "operation (assetStatus, generationStart… or * for all); for webhook rules a task (video_generate…) or *")
      .argument("[action]", "error, latency, reset, empty, job_fail, job_stall, progress_backwards, webhook_drop, webhook_duplicate, webhook_delay, webhook_reorder"),
  ).action(async (op: string | undefined, action: string | undefined, flags: AddFlags, cmd: Command) => {
    const ctx = get(cmd);
    let rules: unknown[];
    if (flags.file !== undefined) {
      if (op !== undefined) throw new CliError("give either <op> <action> or --file, not both", EXIT.usage, "usage_error", "--file");
      rules = readFaultsFile(flags.file, "--file");
    } else {
      if (op === undefined) throw new CliError("missing <op>: the operation the rule matches (or --file)", EXIT.usage, "missing_field", "op");
      if (action === undefined) throw new CliError("missing <action>: what the rule does (error, latency, reset…)", EXIT.usage, "missing_field", "action");
      rules = [ruleFromFlags(op, action, flags)];
    }
    const instance = await ctx.localInstance();
    const added = instance.faults.add(rules as never, flags.file !== undefined ? "file" : "cli") as RuleView[];
    ctx.print(
      added,
      (r) => rulesTable(ctx, r),
      (r) => r.map((v) => v.id),
    );
  });
  examples(add, [
    "mediagen local faults add assetStatus error --status 404 --times 1",
    "mediagen local faults add generationStart error --code INSUFFICIENT_CREDITS",
    "mediagen local faults add assetStart error --status 429 --times 3",
    "mediagen local faults add assetStart error --status 429 --retry-after 1 --times 1",
    "mediagen local faults add folderList reset --times 1",
    "mediagen local faults add generationStart job_fail --code VOICE_GENERATION_FAILED --step VOICE_GENERATION",
    "mediagen local faults add video_export webhook_duplicate",
    "mediagen local faults add --file faults.json",
  ]);

  const list = faults
    .command("list")
    .description("List fault rules: what they match and do, matches left, hits, state")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      ctx.print(
        instance.faults.list() as RuleView[],
        (r) => rulesTable(ctx, r),
        (r) => r.map((v) => v.id),
      );
    });
  examples(list, ["mediagen local faults list", "mediagen local faults list --json"]);

  const clear = faults
    .command("clear")
    .description("Remove one fault rule, or all of them")
    .argument("[id]", "the rule's id (flt_…); all rules when omitted")
    .action(async (id: string | undefined, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const removed = instance.faults.clear(id);
      ctx.print(
        { removed },
        () => [],
        () => [],
      );
      if (!ctx.opts.json) ctx.io.info(`Removed ${removed} fault rule(s).`);
    });
  examples(clear, ["mediagen local faults clear", "mediagen local faults clear flt_65f0c2a1b3e4d5f6a7b8c9d0"]);
}
