/**
 * Voice endpoints of the local instance: GET /voice/list, GET /resources/voices, GET /voice/{id}.
 * Space voices come first; catalog voices are limited to the tiers the space's plan unlocks. Each
 * takes the query the contract accepted (./contract.ts judged its values).
 */
import type { ResourceVoice, ResourceVoicesRequest, Voice, VoiceGetRequest, VoiceListRequest } from "../contract.js";
import { ApiError } from "../../../engine/errors.js";
import { notice } from "../../../engine/notices.js";
import { localDebug } from "../../../local/debug.js";
import type { HandlerTable, RequestContext } from "../../../local/types.js";
import { boolOf, genderOf, listOf, matchesAny } from "../../../local/list-filters.js";
import { ensurePreviews, findVoice, voicesFor, type VoiceView } from "./public/lookup.js";

/**
 * A language filter: a code (`pt`) matches voices of that code; a regional tag (`pt-BR`, `pt_BR`)
 * matches voices of that tag, or of its language when the instance has none for the region (its
 * voices carry plain codes, as the service documents them): said on stderr (in process) and under MEDIAGEN_DEBUG.
 */
function languageTest(value: unknown): (language: string) => boolean {
  const tag = typeof value === "string" ? value.trim().toLowerCase().replace(/_/g, "-") : "";
  if (!tag) return () => true;
  const primary = tag.split("-")[0]!;
  if (primary === tag) return (language) => language.toLowerCase() === tag;
  let said = false;
  return (language) => {
    const l = language.toLowerCase();
    if (l === tag) return true;
    if (l !== primary) return false;
    if (!said) {
      said = true;
      const note = `language ${String(value).trim()}: the local instance's voices carry language codes; matched to ${primary} voices`;
      notice(note);
      localDebug(note);
    }
    return true;
  };
}

/** language, gender and comma `tags` (any of them), as one predicate. */
export function voiceFilter(input: ResourceVoicesRequest): (v: VoiceView) => boolean {
  const language = languageTest(input.language);
  const gender = genderOf(input.gender);
  const tags = listOf(input.tags);
  return (v) => (gender === undefined || v.gender === gender) && matchesAny(tags, v.tags) && language(v.language);
}

function toVoice(v: VoiceView): Voice {
  return { id: v.id, name: v.name, language: v.language, gender: v.gender, tags: v.tags, source: v.source };
}

function voiceList(ctx: RequestContext, input: VoiceListRequest): Voice[] {
  const test = voiceFilter(input);
  const onlyPublic = boolOf(input.onlyPublic) ?? false;
  return voicesFor(ctx.instance.db, ctx.space.id, ctx.space.plan, { onlyPublic }).filter(test).map(toVoice);
}

async function resourceVoices(ctx: RequestContext, input: ResourceVoicesRequest): Promise<ResourceVoice[]> {
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

function voiceGet(ctx: RequestContext, input: VoiceGetRequest): Voice {
  const v = findVoice(ctx.instance.db, ctx.space.id, ctx.space.plan, input.id);
  if (!v) throw ApiError.of("NOT_FOUND", "Voice not found");
  return toVoice(v);
}

export const voiceHandlers: HandlerTable = {
  voiceList: (ctx, input) => voiceList(ctx, (input ?? {}) as VoiceListRequest),
  resourceVoices: (ctx, input) => resourceVoices(ctx, (input ?? {}) as ResourceVoicesRequest),
  voiceGet: (ctx, input) => voiceGet(ctx, input as VoiceGetRequest),
};
