/**
 * What the renderer is asked to draw for one asset: which inputs go into which role (start/end
 * frame, source, motion, references), at what size and for how long. Pure: the worker resolves the
 * files and probes the source, then renders exactly this.
 */
import { findModel, type RenderMode } from "../catalog/models.js";
import { followSize, upscaleSize, type Size } from "../catalog/asset-frames.js";
import type { AssetRow, RenderParams } from "./asset-record.js";
import type { ResolvedRef } from "./asset-refs.js";

/** Models that follow their source render at most this long (the hosted models cap inputs similarly). */
export const MAX_FOLLOW_SECONDS = 60;

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
export function followedSource(mode: RenderMode, params: RenderParams): ResolvedRef | undefined {
  if (mode === "motion") return params.slots.motion_video;
  if (mode === "edit" || mode === "upscale") return params.slots.source_video;
  return undefined;
}

function describe(row: AssetRow, label: string): string {
  const parts = [label];
  if (row.resolution) parts.push(row.resolution);
  if (row.duration !== null) parts.push(`${row.duration}s`);
  return parts.join(" · ");
}

export function planRender(
  row: AssetRow,
  params: RenderParams,
  local: (ref: ResolvedRef) => string,
  source?: SourceInfo,
): ImagePlan | VideoPlan {
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
    const size = mode === "upscale" ? upscaleSize(source) : followSize(source);
    plan.width = size.width;
    plan.height = size.height;
    plan.durationSeconds = Math.min(MAX_FOLLOW_SECONDS, Math.round(source.durationSeconds * 1000) / 1000);
  }
  for (const k of ["startImage", "endImage", "sourceVideo", "motionVideo"] as const) if (plan[k] === undefined) delete plan[k];
  return plan;
}
