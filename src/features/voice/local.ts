/**
 * Voice endpoints of the local instance: GET /voice/list, GET /resources/voices, GET /voice/{id}.
 * Space voices come first; catalog voices are limited to the tiers the space's plan unlocks.
 */
import type { ResourceVoice, Voice } from "./contract.js";
import { ApiError } from "../../engine/errors.js";
import type { HandlerTable, RequestContext } from "../../local/types.js";
import { matchesAny, matchesOne, parseBoolParam, parseGender, parseList } from "../../local/list-filters.js";
import { ensurePreviews, findVoice, voicesFor, type VoiceView } from "./lookup.js";

/** language, gender and comma `tags` (any of them), as one predicate. */
export function voiceFilter(input: Record<string, unknown>): (v: VoiceView) => boolean {
  const language = parseList(input.language, "language");
  const gender = parseGender(input.gender);
  const tags = parseList(input.tags, "tags");
  return (v) => matchesOne(language, v.language) && (gender === undefined || v.gender === gender) && matchesAny(tags, v.tags);
}

function toVoice(v: VoiceView): Voice {
  return { id: v.id, name: v.name, language: v.language, gender: v.gender, tags: v.tags, source: v.source };
}

function voiceList(ctx: RequestContext, input: Record<string, unknown>): Voice[] {
  const test = voiceFilter(input);
  const onlyPublic = parseBoolParam(input.onlyPublic, "onlyPublic") ?? false;
  return voicesFor(ctx.instance.db, ctx.space.id, ctx.space.plan, { onlyPublic }).filter(test).map(toVoice);
}

async function resourceVoices(ctx: RequestContext, input: Record<string, unknown>): Promise<ResourceVoice[]> {
  const voices = voicesFor(ctx.instance.db, ctx.space.id, ctx.space.plan).filter(voiceFilter(input));
  await ensurePreviews(ctx.instance, voices);
  return voices.map((v) => ({
    id: v.id,
    name: v.name,
    language: v.language,
    accent: v.accent,
    gender: v.gender,
    tags: v.tags,
    preview: ctx.urls.media(v.previewRel),
  }));
}

function voiceGet(ctx: RequestContext, input: Record<string, unknown>): Voice {
  const id = input.id;
  const v = typeof id === "string" && id !== "" ? findVoice(ctx.instance.db, ctx.space.id, ctx.space.plan, id) : undefined;
  if (!v) throw ApiError.of("NOT_FOUND", "Voice not found");
  return toVoice(v);
}

export const voiceHandlers: HandlerTable = {
  voiceList: (ctx, input) => voiceList(ctx, (input ?? {}) as Record<string, unknown>),
  resourceVoices: (ctx, input) => resourceVoices(ctx, (input ?? {}) as Record<string, unknown>),
  voiceGet: (ctx, input) => voiceGet(ctx, input as Record<string, unknown>),
};
