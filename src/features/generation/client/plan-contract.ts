/**
 * The sequence plan as one zod schema, the source of `mediagen plan schema` and the MCP plan
 * resource (z.toJSONSchema, draft 2020-12). What zod says itself: required fields, types, enums,
 * bounds, non-blank text and ids, the extensions of media and audio links (patterns, any case). What
 * only JSON Schema says is attached as metadata and merged into the output: "a silent sequence (text
 * null) needs duration_ms and a spoken one takes none", "a silent sequence is alone in its block,
 * without voice_id or audio_url", "media needs an asset_id or a url (asset_id wins)". Nulls stand
 * for absent fields, as the plan validator (plan.ts `checkPlan`) reads them.
 */
import { z } from "zod";
import { AUDIO_EXTENSIONS, IMAGE_EXTENSIONS, VIDEO_EXTENSIONS } from "../../../contract/request-fields.js";
import { MEDIA_SHOW } from "../contract.js";

/** Milliseconds a silent sequence may last (the generation limit, 600 s). */
export const PLAN_SILENT_MAX_MS = 600_000;

/** `abc` → `[aA][bB][cC]`: JSON Schema patterns have no case-insensitive flag. */
function anyCase(s: string): string {
  return [...s].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))).join("");
}

/**
 * A link the validator takes for media of these extensions: an http(s) URL, a file:// URL or a path
 * (no scheme, or a one-letter drive), whose path (before `?` or `#`) ends in one of them, any case.
 */
export function linkPattern(exts: readonly string[]): RegExp {
  const ext = exts.map((e) => anyCase(e.slice(1))).join("|");
  const scheme = `(?:${anyCase("http")}[sS]?:\\/\\/[^\\s/?#]+|${anyCase("file")}:|(?![a-zA-Z][a-zA-Z0-9+.-]+:))`;
  return new RegExp(`^\\s*${scheme}[^?#]*\\.(?:${ext})(?:[?#].*)?\\s*$`);
}

const NON_BLANK = /\S/;
const nonBlankId = (description: string) => z.string().regex(NON_BLANK).nullable().optional().describe(description);
const MEDIA_LINK = linkPattern([...IMAGE_EXTENSIONS, ...VIDEO_EXTENSIONS]);
const silent = { type: "object", required: ["text"], properties: { text: { type: "null" } } };

export const PlanMedia = z
  .looseObject({
    asset_id: nonBlankId("Library media id (an image or video asset of the space); wins over url."),
    url: z
      .string()
      .nullable()
      .optional()
      .describe(`Public image or video URL (${[...IMAGE_EXTENSIONS, ...VIDEO_EXTENSIONS].join(" ")}); a local file on the local target.`),
    show: z.enum(MEDIA_SHOW).nullable().optional().describe("How the media is shown: full screen, half, background, or hidden (default hide)."),
    start_at: z.number().min(0).nullable().optional().describe("Videos: start this many seconds into the clip."),
  })
  .describe("What is on screen during the sequence. Omit it to let automatic b-roll fill the slot (only when no sequence of the plan has media).")
  .meta({
    id: "media",
    // asset_id wins over url: a url beside an asset_id is not judged; without one the url is needed and must be media.
    if: { required: ["asset_id"], properties: { asset_id: { type: "string" } } },
    else: { required: ["url"], properties: { url: { type: "string", pattern: MEDIA_LINK.source } } },
  });

export const PlanSequence = z
  .looseObject({
    text: z.string().regex(NON_BLANK).nullable().describe("What is said; null makes a silent sequence (then duration_ms is required)."),
    duration_ms: z
      .number()
      .nullable()
      .optional()
      .describe("Silent sequences only (required there): milliseconds of silence. Spoken sequences are timed from their audio."),
    look_id: nonBlankId("Look of this sequence; overrides the block's look, then the request's avatar_id."),
    action: z.string().nullable().optional().describe("Avatar direction, applied by models that accept motion direction."),
    media: PlanMedia.optional(),
  })
  .describe("One sequence: a sentence or two said in one look, or a silence.")
  .meta({
    id: "sequence",
    if: silent,
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema if/then/else keyword, not a thenable
    then: { required: ["duration_ms"], properties: { duration_ms: { type: "number", exclusiveMinimum: 0, maximum: PLAN_SILENT_MAX_MS } } },
    else: { properties: { duration_ms: { type: "null" } } },
  });

export const PlanBlock = z
  .looseObject({
    sequences: z.array(PlanSequence).min(1).describe("The block's sequences, in playback order."),
    voice_id: nonBlankId("Voice of the block (falls back to the request's voice_id); not allowed on a silent block."),
    look_id: nonBlankId("Default look of the block's sequences."),
    audio_url: z
      .string()
      .regex(linkPattern(AUDIO_EXTENSIONS))
      .nullable()
      .optional()
      .describe(`Speech supplied as audio (${AUDIO_EXTENSIONS.join(" ")}): skips voice generation.`),
    avatar_id: nonBlankId("Avatar the block's looks belong to."),
  })
  .describe("A speech block: sequences in playback order, said by one voice.")
  .meta({
    id: "block",
    // A silent sequence is alone in its own block, with no voice_id (and no audio).
    if: { required: ["sequences"], properties: { sequences: { type: "array", contains: silent } } },
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema if/then/else keyword, not a thenable
    then: { properties: { sequences: { type: "array", maxItems: 1 }, voice_id: { type: "null" }, audio_url: { type: "null" } } },
  });

export const PlanSchema = z.array(PlanBlock).min(1).meta({
  $id: "urn:mediagen:schema:sequence-plan",
  title: "Sequence plan",
  description:
    "sequence_plan of POST /generation/start: speech blocks in playback order. `mediagen plan validate` also checks what a schema cannot: the total length (at most 600 s) and that ids exist.",
});
