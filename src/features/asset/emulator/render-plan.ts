/**
 * What the renderer is asked to draw for one asset: which inputs go into which role (start/end
 * frame, source, motion, references), at what size and for how long. Pure: the worker resolves the
 * files and probes the source, then renders exactly this.
 */
import { findModel, type RenderMode } from "./catalog/models.js";
import { DEFAULT_RESOLUTION, MAX_FOLLOW_SECONDS, aspectRatioName, followSize, frameSize, upscaleSize, videoResolutionName, type Size } from "./catalog/frames.js";
import type { AssetRow, RenderParams } from "./public/record.js";
import type { ResolvedRef } from "./public/refs.js";
import { withArticle } from "../../../engine/words.js";

export { MAX_FOLLOW_SECONDS };

export interface SourceInfo extends Size {
  durationSeconds: number;
}

export interface ImagePlan {
  kind: "image";
  width: number;
  height: number;
  prompt: string;
  label: string;
  references: string[];
}

export interface VideoPlan {
  kind: "video";
  mode: RenderMode;
  width: number;
  height: number;
  durationSeconds: number;
  prompt: string;
  label: string;
  audio: boolean;
  startImage?: string;
  endImage?: string;
  sourceVideo?: string;
  motionVideo?: string;
  references: string[];
}

/** The input whose size and length the output follows, if the model follows one. */
export function followedSource(mode: RenderMode, params: Pick<RenderParams, "slots">): ResolvedRef | undefined {
  if (mode === "motion") return params.slots.motion_video;
  if (mode === "edit" || mode === "upscale") return params.slots.source_video;
  return undefined;
}

/** What a source-following model outputs for this source: its size (doubled for upscale) and length, capped. */
export function followedOutput(mode: RenderMode, source: SourceInfo): SourceInfo {
  const size = mode === "upscale" ? upscaleSize(source) : followSize(source);
  return { ...size, durationSeconds: Math.min(MAX_FOLLOW_SECONDS, Math.round(source.durationSeconds * 1000) / 1000) };
}

/** The effective `generation_params` of an output that follows its source: named from its size and length. */
export function paramsOfOutput(out: SourceInfo): { aspectRatio: string; resolution: string; duration: number } {
  return {
    aspectRatio: aspectRatioName(out),
    resolution: videoResolutionName(out),
    // The column holds whole seconds (as requests give them); duration_seconds keeps the exact length.
    duration: Math.max(1, Math.round(out.durationSeconds)),
  };
}

export interface PlannedOutput {
  aspectRatio: string;
  resolution: string;
  /** Whole seconds; null for images. */
  duration: number | null;
  width: number;
  height: number;
  durationSeconds: number | null;
}

/**
 * What a start will produce, recorded on the row at once: the model's choices with the defaults it
 * renders and prices at (a model without a resolution choice still renders at one), or, for a model
 * that follows its source, what that source makes.
 */
export function plannedOutput(
  type: "image" | "video",
  mode: RenderMode,
  choice: { aspectRatio: string | null; resolution: string | null; duration: number | null },
  source?: SourceInfo,
): PlannedOutput {
  if (source) {
    const out = followedOutput(mode, source);
    return { ...paramsOfOutput(out), width: out.width, height: out.height, durationSeconds: out.durationSeconds };
  }
  if (choice.aspectRatio === null) throw new Error(`${withArticle(mode)} model without an aspect ratio must follow a source`);
  const resolution = choice.resolution ?? DEFAULT_RESOLUTION[type];
  const size = frameSize(type, choice.aspectRatio, resolution);
  const duration = type === "video" ? choice.duration : null;
  return { aspectRatio: choice.aspectRatio, resolution, duration, ...size, durationSeconds: duration };
}

function describe(row: AssetRow, label: string): string {
  const parts = [label];
  if (row.resolution) parts.push(row.resolution);
  if (row.duration !== null) parts.push(`${row.duration}s`);
  return parts.join(" · ");
}

export function planRender(row: AssetRow, params: RenderParams, local: (ref: ResolvedRef) => string, source?: SourceInfo): ImagePlan | VideoPlan {
  const model = findModel(row.model);
  const label = describe(row, model?.label ?? row.model);
  const refs = params.references;
  const elementImages = params.elements.flatMap((e) => e.images);
  const prompt = params.avatarDescription ? `${row.prompt}\nSubject: ${params.avatarDescription}` : row.prompt;

  if (row.type === "image") {
    return {
      kind: "image",
      width: row.width!,
      height: row.height!,
      prompt,
      label,
      references: [...refs, ...elementImages].map(local),
    };
  }

  const mode = params.render;
  const plan: VideoPlan = {
    kind: "video",
    mode,
    width: row.width ?? 0,
    height: row.height ?? 0,
    durationSeconds: row.duration ?? 0,
    prompt,
    label,
    audio: params.audio,
    references: [],
  };
  const slot = (name: string) => (params.slots[name] ? local(params.slots[name]!) : undefined);

  switch (mode) {
    case "frames":
      plan.startImage = slot("first_frame") ?? slot("start_image");
      plan.endImage = slot("last_frame") ?? slot("end_image");
      break;
    case "extend":
      plan.sourceVideo = slot("source_video");
      break;
    case "motion":
      plan.startImage = slot("start_image");
      plan.motionVideo = slot("motion_video");
      break;
    case "edit":
    case "upscale":
      plan.sourceVideo = slot("source_video");
      break;
    default: {
      // A single image reference opens the video; several are shown as a reference board.
      const all = [...refs, ...elementImages];
      if (all.length === 1 && all[0]!.kind === "image") plan.startImage = local(all[0]!);
      else plan.references = all.map(local);
    }
  }

  if (followedSource(mode, params)) {
    if (!source) throw new Error(`${row.model} renders from its source, which was not probed`);
    const out = followedOutput(mode, source);
    plan.width = out.width;
    plan.height = out.height;
    plan.durationSeconds = out.durationSeconds;
  }
  for (const k of ["startImage", "endImage", "sourceVideo", "motionVideo"] as const) if (plan[k] === undefined) delete plan[k];
  return plan;
}
