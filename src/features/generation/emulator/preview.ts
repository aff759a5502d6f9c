/**
 * `mediagen plan preview`: a plan rendered by the local instance, whatever the profile's target, for
 * free — no job, no ledger entry on any space, nothing kept but the MP4. It runs the generation's own
 * steps (build.ts) and the export's renderer (media/export) with the same timing, layouts, subtitles,
 * pauses and transitions as a full export, at draft quality: half the width and height (a quarter
 * of the area), x264's fastest preset, a soundtrack without loudness normalisation. What a draft
 * adds to be looked at (media/export/draft.ts): a look of another shape than the video is shown
 * whole with the export's crop framed (so the words on a local look are not cut), and a sequence's
 * `action` is a label in the corner.
 *
 * Ids the local instance does not have (a hosted voice or look that `local catalog sync` did not
 * copy, an asset of a hosted library) are replaced by stand-ins and reported, so a hosted plan can
 * always be previewed: a voice by a local voice, a look by the first public look, a library media
 * by nothing (the sequence shows its look), a parent avatar id is left out.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { exportSize, type ExportFormat, type RenderSpec } from "../../../media/export/spec.js";
import type { LocalInstance } from "../../../local/instance.js";
import type { RequestContext } from "../../../local/types.js";
import { allLookViews } from "../../avatar/emulator/public/records.js";
import { voicesFor } from "../../voice/emulator/public/lookup.js";
import { MIX_CACHE_DIR } from "../../export/emulator/public/job.js";
import { renderSpecOf } from "../../export/emulator/public/render-spec.js";
import { videoDir } from "../../video/emulator/public/record.js";
import { sequencesOf, type VideoTimeline } from "../../video/emulator/public/timeline.js";
import { buildTimeline } from "./build.js";
import { startLookups } from "./local.js";
import type { PreviewInput, PreviewResult, PreviewSequence, PreviewSubstitution } from "../preview-types.js";
import { validateStart, type StartLookups } from "./request.js";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);

/** Half of each side, even: a quarter of the frame area. */
export function draftSize(full: { width: number; height: number }): { width: number; height: number } {
  const half = (n: number) => Math.max(2, 2 * Math.round(n / 4));
  return { width: half(full.width), height: half(full.height) };
}

interface StandIns {
  voice: string | undefined;
  look: string | undefined;
}

/** Replaces the ids `lookups` cannot resolve, in place, and says what stood in for each. */
export function standInIds(body: Json, lookups: StartLookups, standIns: StandIns): PreviewSubstitution[] {
  const out: PreviewSubstitution[] = [];
  const voice = (o: Json, key: string, field: string) => {
    const id = o[key];
    if (typeof id !== "string" || lookups.voice(id)) return;
    out.push({ field, id, stood_in: standIns.voice ?? null, note: standIns.voice ? "a local voice speaks instead" : "no local voice: left to the request's" });
    if (standIns.voice) o[key] = standIns.voice;
    else delete o[key];
  };
  const look = (o: Json, key: string, field: string) => {
    const id = o[key];
    if (typeof id !== "string" || lookups.look(id)) return;
    out.push({ field, id, stood_in: standIns.look ?? null, note: standIns.look ? "the first public look is shown instead" : "no look: a plain background" });
    if (standIns.look) o[key] = standIns.look;
    else delete o[key];
  };
  voice(body, "voice_id", "voice_id");
  look(body, "avatar_id", "avatar_id");
  const plan = Array.isArray(body.sequence_plan) ? body.sequence_plan : [];
  plan.forEach((b, i) => {
    if (!isObj(b)) return;
    const bp = `sequence_plan[${i}]`;
    voice(b, "voice_id", `${bp}.voice_id`);
    look(b, "look_id", `${bp}.look_id`);
    if (typeof b.avatar_id === "string" && !lookups.avatar(b.avatar_id)) {
      out.push({ field: `${bp}.avatar_id`, id: b.avatar_id, stood_in: null, note: "left out" });
      delete b.avatar_id;
    }
    (Array.isArray(b.sequences) ? b.sequences : []).forEach((s, j) => {
      if (!isObj(s)) return;
      const sp = `${bp}.sequences[${j}]`;
      look(s, "look_id", `${sp}.look_id`);
      const m = s.media;
      if (isObj(m) && typeof m.asset_id === "string" && !lookups.asset(m.asset_id)?.ref) {
        out.push({ field: `${sp}.media.asset_id`, id: m.asset_id, stood_in: null, note: "not in the local library: the sequence shows its look instead" });
        delete s.media;
      }
    });
  });
  return out;
}

function sequencesOfTimeline(t: VideoTimeline): PreviewSequence[] {
  const blockOf = new Map(t.blocks.map((b, i) => [b, i]));
  const indexIn = new Map<number, number>();
  return sequencesOf(t).map(({ block, sequence: s }) => {
    const b = blockOf.get(block)!;
    const index = indexIn.get(b) ?? 0;
    indexIn.set(b, index + 1);
    return { block: b, index, text: s.text, start_ms: s.start_ms, end_ms: s.end_ms, look_id: s.look_id, media_show: s.media?.show ?? null };
  });
}

/** The sequences' `action` (the plan's avatar direction), which the draft shows as a label. */
export function withActions(spec: RenderSpec, t: VideoTimeline): RenderSpec {
  const blocks = spec.blocks.map((b, i) => ({
    ...b,
    sequences: b.sequences.map((s, j) => {
      const action = t.blocks[i]?.sequences[j]?.action;
      return action ? { ...s, action } : s;
    }),
  }));
  return { ...spec, blocks };
}

/** The request as the local instance resolves it, with stand-ins for the ids it does not have. */
function resolveRequest(instance: LocalInstance, body: Json) {
  const space = instance.spaceForKey(instance.defaultKey());
  if (!space) throw new Error("the local instance has no default space");
  const rctx = { instance, space, allowLocalFiles: true, allowPrivateNetwork: true } as unknown as RequestContext;
  const lookups = startLookups(rctx);
  const voices = voicesFor(instance.db, space.id, space.plan, { onlyPublic: true });
  const firstLook = allLookViews(instance.db, space.id, true).find((v) => v.status === "ready");
  const copy = structuredClone(body);
  const substitutions = standInIds(copy, lookups, { voice: (voices.find((v) => v.language === "en") ?? voices[0])?.id, look: firstLook?.id });
  const spec = validateStart(copy, lookups);
  spec.allow_private_network = true;
  return { space, spec, substitutions };
}

export async function previewPlan(instance: LocalInstance, o: PreviewInput): Promise<PreviewResult> {
  const t0 = performance.now();
  const signal = o.signal ?? new AbortController().signal;
  o.onProgress?.("resolving", 0);
  const { space, spec, substitutions } = resolveRequest(instance, o.body);
  const videoId = `preview-${crypto.randomBytes(6).toString("hex")}`;
  const work = path.join(instance.mediaDir, videoDir(videoId));
  try {
    const timeline = await buildTimeline({
      db: instance.db,
      mediaDir: instance.mediaDir,
      spaceId: space.id,
      videoId,
      spec,
      signal,
      progress: (step, pct) => o.onProgress?.(step, pct),
    });
    const tb = performance.now();
    const full = exportSize(spec.format as ExportFormat, { width: spec.width, height: spec.height });
    const size = draftSize(full);
    const { getTools } = await import("../../../media/tools.js");
    const tools = await getTools();
    const { renderExport } = await import("../../../media/export/render.js");
    const r = await renderExport(withActions(renderSpecOf(timeline, size, instance.mediaDir), timeline), {
      outPath: o.outPath,
      signal,
      tools,
      draft: true,
      cacheDir: path.join(instance.mediaDir, MIX_CACHE_DIR),
      onProgress: (step, pct) => o.onProgress?.(step, pct),
    });
    const t1 = performance.now();
    return {
      file: r.path,
      duration_ms: timeline.duration_ms,
      width: r.width,
      height: r.height,
      full_width: full.width,
      full_height: full.height,
      frames: r.frames,
      sequences: sequencesOfTimeline(timeline),
      substitutions,
      warnings: r.warnings,
      timings: { build: Math.round(tb - t0), render: Math.round(t1 - tb), total: Math.round(t1 - t0) },
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
