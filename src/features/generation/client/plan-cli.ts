/**
 * `mediagen plan …`: the tools around a sequence plan, the `sequence_plan` of POST /generation/start.
 * `validate` (the service's plan rules with JSON paths, then ids against the target), `schema` (its
 * JSON Schema), `price` (what the service would charge), `show` (a readable timeline), and `new` /
 * `edit` (the interactive wizard, plan-wizard.ts). Running a plan stays `generate --plan`.
 */
import type { Command } from "commander";
import { CliError, EXIT, type Context } from "../../../cli/types.js";
import type { CommandModule, ContextGetter } from "../../../cli/command-context.js";
import { examples } from "../../../cli/help-text.js";
import { defineFlags, wholeAtLeast, type FlagInput } from "../../../cli/flags.js";
import type { PlanIssue, Verdict } from "./plan-io.js";

const OFFLINE = { flag: "--offline", type: "boolean", help: "do not check ids against the target (rules only)" } as const;
const OUTPUT = (help: string, fallback?: string) => ({ flag: "-o, --output <file>", type: "string", help, ...(fallback ? { default: fallback } : {}) }) as const;

const VALIDATE_FLAGS = defineFlags({
  offline: OFFLINE,
  // Text: plan-formats.ts names the formats it takes ("--format: expected one of …").
  format: {
    flag: "--format <format>",
    type: "string",
    help: "the video's format, as generate --format (default vertical): a look of another shape is warned about",
  },
});
const PRICE_FLAGS = defineFlags({
  animateImage: {
    flag: "--animate-image",
    type: "boolean",
    help: "as with generate --animate-image: images of the plan are animated (+5 credits each)",
    field: "animate_image",
  },
  maxAnimatedImages: { flag: "--max-animated-images <n>", type: "string", to: wholeAtLeast(0), hidden: true, help: "", field: "animate_image_max" },
  animateImageMax: {
    flag: "--animate-image-max <n>",
    type: "string",
    to: wholeAtLeast(0),
    help: "as with generate --animate-image-max: at most this many are animated",
    field: "animate_image_max",
  },
  offline: { ...OFFLINE, help: "do not check ids against the target" },
});
const SHOW_FLAGS = defineFlags({ offline: { ...OFFLINE, help: "do not check ids against the target, nor read voice and look names" } });
const PREVIEW_FLAGS = defineFlags({
  output: OUTPUT("where to write the MP4 (replaced if it exists; default <plan>.preview.mp4 beside the plan, preview.mp4 for stdin)"),
  animateImage: { flag: "--animate-image", type: "boolean", help: "as with generate --animate-image: image media move (slow pan and zoom)" },
  open: { flag: "--no-open", type: "boolean", help: "do not offer to open the file on a terminal" },
});
const NEW_FLAGS = defineFlags({
  output: OUTPUT("where to save the plan", "plan.json"),
  force: { flag: "--force", type: "boolean", help: "overwrite the file without asking" },
});
const EDIT_FLAGS = defineFlags({ output: OUTPUT("save to another file (default: the file opened)") });

interface JudgeFlags {
  offline?: boolean;
}

/** Prints the problems (data: stdout) and fails with exit 2. */
function failWith(from: string, v: Verdict): never {
  const first = v.problems[0]!;
  const n = v.problems.length;
  throw new CliError(
    `${from} has ${n} problem${n === 1 ? "" : "s"}${n > 1 ? `; the first: ${first.message}` : `: ${first.message}`}`,
    EXIT.usage,
    first.code,
    first.field,
  );
}

function issueLines(list: readonly PlanIssue[]): string[] {
  return list.map((p) => `${p.code === "INVALID_PLAN" ? "" : `${p.code}: `}${p.message}`);
}

function idsNote(v: Verdict): string {
  return v.ids.checked ? `ids checked against the ${v.ids.target} target` : `ids not checked: ${v.ids.reason}`;
}

async function judged(ctx: Context, file: string, flags: JudgeFlags) {
  const { loadPlan, judgePlan } = await import("./plan-io.js");
  const loaded = await loadPlan(ctx, file);
  const verdict = await judgePlan(ctx, loaded, { offline: flags.offline === true });
  return { loaded, verdict };
}

/** A plan that must be good for the command to go on (price, show): its problems otherwise, exit 2. */
async function goodPlan(ctx: Context, file: string, flags: JudgeFlags) {
  const { loaded, verdict } = await judged(ctx, file, flags);
  if (verdict.problems.length || !verdict.blocks) {
    if (!ctx.opts.json) for (const l of issueLines(verdict.problems)) ctx.io.warn(l);
    failWith(loaded.from, verdict);
  }
  return { loaded, verdict, blocks: verdict.blocks! };
}

function registerValidate(plan: Command, getContext: ContextGetter): void {
  const validate = plan
    .command("validate")
    .argument("<file>", "the plan: a JSON file (an array of speech blocks, or an object with sequence_plan), or - for stdin")
    .description(
      "Check a plan with the service's plan rules (each problem with its JSON path), then its voice, look, avatar and asset ids against the target; exit 2 on any problem",
    );
  VALIDATE_FLAGS.addTo(validate).action(async (file: string, opts: FlagInput<typeof VALIDATE_FLAGS>, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = VALIDATE_FLAGS.values(opts);
    const { loaded, verdict } = await judged(ctx, file, flags);
    const { addLookFormatWarnings } = await import("./plan-formats.js");
    await addLookFormatWarnings(ctx, verdict, flags.format);
    const ok = verdict.problems.length === 0;
    const report = {
      file: loaded.from,
      valid: ok,
      problems: verdict.problems,
      warnings: verdict.warnings,
      ids_checked: verdict.ids.checked,
      ...(verdict.ids.reason ? { ids_note: verdict.ids.reason } : {}),
    };
    ctx.print(
      report,
      (r) => (ok ? [`${r.file}: valid (${idsNote(verdict)})`, ...issueLines(verdict.warnings).map((l) => `warning: ${l}`)] : issueLines(verdict.problems)),
      (r) => (ok ? [] : r.problems.map((p) => p.field)),
    );
    if (!ok) failWith(loaded.from, verdict);
  });
  examples(validate, ["mediagen plan validate plan.json", "cat plan.json | mediagen plan validate - --json", "mediagen plan validate plan.json --offline"]);
}

function registerSchema(plan: Command, getContext: ContextGetter): void {
  const schema = plan
    .command("schema")
    .description("Print the JSON Schema (draft 2020-12) of a sequence plan, for editors and other tools")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = getContext(cmd);
      const { planJsonSchema } = await import("./plan-schema.js");
      // The schema is the result whatever the output mode: JSON on stdout.
      ctx.io.out(JSON.stringify(planJsonSchema(), null, 2));
    });
  examples(schema, ["mediagen plan schema > sequence-plan.schema.json"]);
}

function registerPrice(plan: Command, getContext: ContextGetter): void {
  const price = plan
    .command("price")
    .argument("<file>", "the plan: a JSON file (an array of speech blocks, or an object with sequence_plan), or - for stdin")
    .description("The credits generate --plan would be charged for this plan (5 per started 30 s with a 15 s buffer, +5 per animated image)");
  PRICE_FLAGS.addTo(price).action(async (file: string, opts: FlagInput<typeof PRICE_FLAGS>, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = PRICE_FLAGS.values(opts);
    const { loaded } = await goodPlan(ctx, file, flags);
    // The request generate --plan would send with the same flags (the service's names).
    const body = PRICE_FLAGS.request(flags, { sequence_plan: loaded.plan });
    const { estimateGenerate } = await import("../estimate.js");
    const target = await ctx.target();
    const est = estimateGenerate(body, target);
    ctx.print(
      { estimated_credits: est.credits, seconds: est.seconds, exact: est.exact, basis: est.basis, target },
      (e) => [
        e.estimated_credits === null
          ? `Not known before it starts: ${e.basis}.`
          : `${e.exact ? "" : "About "}${e.estimated_credits} credit${e.estimated_credits === 1 ? "" : "s"} for about ${e.seconds} s of video, from ${e.basis}.`,
      ],
      (e) => [e.estimated_credits === null ? "unknown" : String(e.estimated_credits)],
    );
    if (!ctx.opts.json && !est.exact && est.credits !== null) ctx.io.info("The hosted service debits its own estimate of the speech it makes when the job starts.");
  });
  examples(price, ["mediagen plan price plan.json", "mediagen plan price plan.json --animate-image -q"]);
}

function registerShow(plan: Command, getContext: ContextGetter): void {
  const show = plan
    .command("show")
    .argument("<file>", "the plan: a JSON file (an array of speech blocks, or an object with sequence_plan), or - for stdin")
    .description("The plan as a timeline: blocks, sequences with estimated times, voices, looks, actions, media, length and price");
  SHOW_FLAGS.addTo(show).action(async (file: string, opts: FlagInput<typeof SHOW_FLAGS>, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = SHOW_FLAGS.values(opts);
    const { blocks, verdict } = await goodPlan(ctx, file, flags);
    const { planTimeline, timelineLines } = await import("./plan-show.js");
    const tl = planTimeline(blocks, await ctx.target());
    // Names of voices and looks, when the target answered the id checks.
    const names: { voice?: (id: string) => string | undefined; look?: (id: string) => string | undefined } = {};
    if (verdict.ids.checked && !ctx.opts.json) {
      try {
        const engine = await ctx.engine();
        const [voices, looks] = await Promise.all([engine.voiceList({}), engine.avatarList({})]);
        const v = new Map((voices as { id: string; name: string }[]).map((x) => [x.id, x.name]));
        const l = new Map((looks as { id: string; avatar_name: string; look_name: string }[]).map((x) => [x.id, `${x.avatar_name} — ${x.look_name}`]));
        names.voice = (id) => v.get(id);
        names.look = (id) => l.get(id);
      } catch {
        // ids only
      }
    }
    ctx.print(
      { ...tl, warnings: verdict.warnings },
      () => [...timelineLines(tl, names), ...issueLines(verdict.warnings).map((l) => `warning: ${l}`)],
      () => [String(tl.estimated_credits ?? "unknown")],
    );
  });
  examples(show, ["mediagen plan show plan.json", "mediagen plan show plan.json --json"]);
}

function registerPreview(plan: Command, getContext: ContextGetter): void {
  const preview = plan
    .command("preview")
    .argument("<file>", "the plan: a JSON file (an array of speech blocks, or an object with sequence_plan and request fields), or - for stdin")
    .description(
      "Render the plan on the local instance, whatever the target, for free: draft quality (a quarter of the frame area, fastest encoder preset), the export's timing, layouts, subtitles, pauses and transitions; ids the local instance lacks get stand-ins, which it names",
    );
  PREVIEW_FLAGS.addTo(preview).action(async (file: string, opts: FlagInput<typeof PREVIEW_FLAGS>, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = PREVIEW_FLAGS.values(opts);
    const { runPreview, previewPathFor } = await import("./plan-preview-cli.js");
    await runPreview(ctx, file, { ...flags, output: flags.output ?? previewPathFor(file) });
  });
  examples(preview, [
    "mediagen plan preview plan.json",
    "mediagen plan preview plan.json -o draft.mp4 --no-open",
    "mediagen plan preview plan.json --json | jq .substitutions",
  ]);
}

function registerNew(plan: Command, getContext: ContextGetter): void {
  const created = plan
    .command("new")
    .description(
      "Build a plan interactively (on a terminal): voices and looks of the target, speech blocks, silences, media, running length and price; saves a validated file",
    );
  NEW_FLAGS.addTo(created).action(async (opts: FlagInput<typeof NEW_FLAGS>, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = NEW_FLAGS.values(opts);
    const { runWizard } = await import("./plan-wizard.js");
    await runWizard(ctx, { output: flags.output ?? "plan.json", force: flags.force === true });
  });
  examples(created, ["mediagen plan new", "mediagen plan new -o launch.json"]);
}

function registerEdit(plan: Command, getContext: ContextGetter): void {
  const edit = plan.command("edit").argument("<file>", "the plan file to re-open").description("Re-open a plan in the wizard and save it back (validated)");
  EDIT_FLAGS.addTo(edit).action(async (file: string, opts: FlagInput<typeof EDIT_FLAGS>, cmd: Command) => {
    const ctx = getContext(cmd);
    const flags = EDIT_FLAGS.values(opts);
    const { runWizard } = await import("./plan-wizard.js");
    await runWizard(ctx, { output: flags.output ?? file, force: true, edit: file });
  });
  examples(edit, ["mediagen plan edit plan.json", "mediagen plan edit plan.json -o plan-v2.json"]);
}

export const planCommand: CommandModule = {
  register(plan: Command, getContext) {
    examples(plan, [
      "mediagen plan new -o plan.json",
      "mediagen plan validate plan.json",
      "mediagen plan show plan.json",
      "mediagen plan price plan.json",
      "mediagen generate --plan plan.json --watch",
    ]);

    registerValidate(plan, getContext);
    registerSchema(plan, getContext);
    registerPrice(plan, getContext);
    registerShow(plan, getContext);
    registerPreview(plan, getContext);
    registerNew(plan, getContext);
    registerEdit(plan, getContext);
  },
};
