/**
 * What the `plan` commands share: reading a plan file (or stdin), judging it with the service's plan
 * rules (plan.ts) and, when the target can be reached, resolving its ids (voices, looks, avatars,
 * assets) as the service would (PLAN_RESOLUTION_FAILED), and writing a plan atomically.
 */
import fs from "node:fs";
import path from "node:path";
import { CliError, EXIT, type Context } from "../../../cli/types.js";
import type { Engine } from "../../../engine/engine.js";
import { absolutePlanPaths } from "./cli.js";
import { readWithinBodyLimit } from "../../../cli/body.js";
import { checkPlan, PLAN_FIELD, type PlanBlock } from "../plan.js";

export interface PlanIssue {
  code: string;
  field: string;
  message: string;
}

export interface LoadedPlan {
  /** Where it came from: the file as given, or "stdin". */
  from: string;
  /** The plan (local paths made absolute against the file's directory), or undefined when it is not JSON. */
  plan: unknown;
  /** Parse problem (not JSON). */
  parseError?: PlanIssue;
  /** The other fields of a file holding a whole request (`{"format": …, "sequence_plan": […]}`). */
  request?: Record<string, unknown>;
}

const usage = (flag: string, message: string, code = "usage_error") => new CliError(`${flag}: ${message}`, EXIT.usage, code, flag);

/** Reads `<file|->`: a JSON array of speech blocks, or an object with `sequence_plan`. */
export async function loadPlan(ctx: Context, value: string, arg = "<file>"): Promise<LoadedPlan> {
  let text: string;
  let from = value;
  let baseDir = process.cwd();
  if (value === "-") {
    from = "stdin";
    if ((ctx.io.stdin as { isTTY?: boolean }).isTTY && !ctx.io.canPrompt) {
      throw usage(arg, "stdin is a terminal and input is off (--no-input or CI); pipe the plan in");
    }
    text = await readWithinBodyLimit("-", ctx.io, arg);
  } else {
    text = await readWithinBodyLimit(value, ctx.io, arg);
    baseDir = path.dirname(path.resolve(value));
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { from, plan: undefined, parseError: { code: "invalid_json", field: PLAN_FIELD, message: `${from} is not valid JSON (${(e as Error).message})` } };
  }
  let request: Record<string, unknown> | undefined;
  if (data && typeof data === "object" && !Array.isArray(data) && "sequence_plan" in data) {
    const { sequence_plan, ...rest } = data as { sequence_plan: unknown } & Record<string, unknown>;
    data = sequence_plan;
    if (Object.keys(rest).length) request = rest;
  }
  return { from, plan: absolutePlanPaths(data, baseDir), ...(request ? { request } : {}) };
}

export interface Verdict {
  problems: PlanIssue[];
  /** Notes that do not fail the plan (a spoken block that needs the request's voice). */
  warnings: PlanIssue[];
  /** The normalised plan, when the rules pass. */
  blocks?: PlanBlock[];
  /** Whether ids were checked against the target, and if not, why. */
  ids: { checked: boolean; target?: string; reason?: string };
}

export interface JudgeOptions {
  /** Skip the id checks (no engine is made). */
  offline?: boolean;
}

/** The plan's rules, then (when they pass and the target answers) its ids. */
export async function judgePlan(ctx: Context, loaded: LoadedPlan, o: JudgeOptions = {}): Promise<Verdict> {
  if (loaded.parseError) return { problems: [loaded.parseError], warnings: [], ids: { checked: false, reason: "the file is not JSON" } };
  let target: "local" | "hosted" = "local";
  try {
    target = await ctx.target();
  } catch {
    // a configuration problem: judged as the local target would, ids unchecked below
  }
  const checked = checkPlan(loaded.plan, { allowLocalFiles: target === "local" });
  const problems: PlanIssue[] = checked.problems.map((p) => ({ code: p.code, field: p.field, message: p.message }));
  const warnings: PlanIssue[] = [];
  if (!checked.blocks) return { problems, warnings, ids: { checked: false, reason: "the plan has problems" } };
  checked.blocks.forEach((b, i) => {
    if (b.sequences.some((s) => s.text !== null) && b.voice_id === null && b.audio_url === null) {
      warnings.push({
        code: "MISSING_VOICE",
        field: `${PLAN_FIELD}[${i}].voice_id`,
        message: `${PLAN_FIELD}[${i}] is spoken but has no voice_id or audio_url: it needs the request's voice (generate --plan … --voice <voice_id>)`,
      });
    }
  });
  if (o.offline) return { problems, warnings, blocks: checked.blocks, ids: { checked: false, reason: "--offline" } };
  let engine: Engine;
  try {
    engine = await ctx.engine();
  } catch (e) {
    return {
      problems,
      warnings,
      blocks: checked.blocks,
      ids: { checked: false, reason: `the ${target} target is not reachable (${(e as Error).message.split("\n")[0]})` },
    };
  }
  try {
    problems.push(...(await resolveIds(engine, checked.blocks)));
  } catch (e) {
    return {
      problems,
      warnings,
      blocks: checked.blocks,
      ids: { checked: false, reason: `the ${target} target is not reachable (${(e as Error).message.split("\n")[0]})` },
    };
  }
  return { problems, warnings, ...(problems.length ? {} : { blocks: checked.blocks }), ids: { checked: true, target } };
}

const notFound = (e: unknown) => {
  const x = e as { name?: string; status?: number };
  return x?.name === "ApiError" && (x.status === 404 || x.status === 400);
};

/** Every id of the plan against the target: each that does not resolve is one PLAN_RESOLUTION_FAILED problem. */
export async function resolveIds(engine: Engine, blocks: readonly PlanBlock[]): Promise<PlanIssue[]> {
  const out: PlanIssue[] = [];
  const bad = (field: string, message: string) => out.push({ code: "PLAN_RESOLUTION_FAILED", field, message: `${field}: ${message}` });
  const voices = new Map<string, Promise<boolean>>();
  const avatars = new Map<string, Promise<boolean>>();
  const assets = new Map<string, Promise<string | undefined>>();
  let looks: Promise<Set<string>> | undefined;
  const names = await import("../../../cli/names.js");
  /** A did-you-mean for an id that does not resolve: a name given where the plan takes an id, or a near miss. */
  const hint = async (value: string, list: Promise<import("../../../cli/names.js").Named[]>) => {
    const near = names.nearNames(value, await list.catch(() => []));
    return near.length ? ` (did you mean ${near.join(" or ")}? a plan takes ids)` : "";
  };
  const lists = new Map<string, Promise<import("../../../cli/names.js").Named[]>>();
  const listOf = (what: "voices" | "looks") => {
    if (!lists.has(what)) {
      lists.set(
        what,
        what === "voices"
          ? engine.voiceList({}).then((l) => (l as import("../../../cli/names.js").VoiceItem[]).map(names.voiceNamed))
          : engine.avatarList({}).then((l) => (l as import("../../../cli/names.js").LookItem[]).map(names.lookNamed)),
      );
    }
    return lists.get(what)!;
  };
  const voiceHint = (value: string) => hint(value, listOf("voices"));
  const lookHint = (value: string) => hint(value, listOf("looks"));
  const voiceOk = (id: string) => {
    if (!voices.has(id))
      voices.set(
        id,
        engine.voiceGet({ id }).then(
          () => true,
          (e) => (notFound(e) ? false : Promise.reject(e)),
        ),
      );
    return voices.get(id)!;
  };
  const lookOk = async (id: string) => {
    looks ??= engine.avatarList({}).then((list) => new Set((list as { id: string }[]).map((l) => l.id)));
    return (await looks).has(id);
  };
  const avatarOk = (id: string) => {
    if (!avatars.has(id))
      avatars.set(
        id,
        engine.avatarGet({ avatar_id: id }).then(
          () => true,
          (e) => (notFound(e) ? false : Promise.reject(e)),
        ),
      );
    return avatars.get(id)!;
  };
  /** undefined when usable, else why not. */
  const assetProblem = (id: string) => {
    if (!assets.has(id)) {
      assets.set(
        id,
        engine.assetStatus({ assetId: id }).then(
          (a) => {
            const r = a as { status: string; type: string };
            if (r.type !== "image" && r.type !== "video") return `asset ${id} is ${r.type}, not an image or a video`;
            return r.status === "completed" ? undefined : `asset ${id} is ${r.status}, not completed`;
          },
          (e) => (notFound(e) ? `asset ${id} is not in this space's library` : Promise.reject(e)),
        ),
      );
    }
    return assets.get(id)!;
  };
  for (const [i, b] of blocks.entries()) {
    const bp = `${PLAN_FIELD}[${i}]`;
    if (b.voice_id !== null && !(await voiceOk(b.voice_id)))
      bad(`${bp}.voice_id`, `voice ${b.voice_id} is not a voice of this space${await voiceHint(b.voice_id)} (see mediagen voice list)`);
    if (b.look_id !== null && !(await lookOk(b.look_id)))
      bad(`${bp}.look_id`, `look ${b.look_id} is not a look of this space or the catalog${await lookHint(b.look_id)} (see mediagen avatar list)`);
    if (b.avatar_id !== null && !(await avatarOk(b.avatar_id))) bad(`${bp}.avatar_id`, `avatar ${b.avatar_id} is not an avatar of this space or the catalog`);
    for (const [j, s] of b.sequences.entries()) {
      const sp = `${bp}.sequences[${j}]`;
      if (s.look_id !== null && !(await lookOk(s.look_id)))
        bad(`${sp}.look_id`, `look ${s.look_id} is not a look of this space or the catalog${await lookHint(s.look_id)} (see mediagen avatar list)`);
      if (s.media?.asset_id !== undefined) {
        const why = await assetProblem(s.media.asset_id);
        if (why) bad(`${sp}.media.asset_id`, why);
      }
    }
  }
  return out;
}

/** Writes `text` to `file` atomically: a temp file beside it, then a rename. The temp file never survives a failure. */
export function writeFileAtomic(file: string, text: string): void {
  const abs = path.resolve(file);
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { mode: 0o644, flag: "wx" });
    fs.renameSync(tmp, abs);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
