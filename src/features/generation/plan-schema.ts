/**
 * The JSON Schema of a sequence plan (`mediagen plan schema`, the MCP plan resource), draft 2020-12,
 * built from the constants the plan validator (plan.ts `checkPlan`) uses, so an editor completes and
 * flags a plan the way `plan validate` judges it.
 *
 * Every rule JSON Schema can say is here: required fields, types, enums, bounds, "a silent sequence
 * (text null) needs duration_ms and a spoken one takes none", "a silent sequence is alone in its
 * block, without voice_id or audio_url", "media needs an asset_id or a url (asset_id wins: a url
 * beside one is not judged)", the extensions of media and audio links. What it cannot say, and only
 * `plan validate` checks: the plan's total length (speech estimated from the text, at most 600 s),
 * whether ids (voices, looks, avatars, assets) exist in the space, and that local files are refused
 * by a service reached over HTTP (the schema accepts them: the local target takes them).
 *
 * No zod here: the schema is plain data, so loading it costs nothing.
 */
import { AUDIO_EXTENSIONS, IMAGE_EXTENSIONS, MAX_SILENT_MS, MEDIA_SHOW, VIDEO_EXTENSIONS } from "./plan.js";

/** `abc` → `[aA][bB][cC]`: JSON Schema patterns have no case-insensitive flag. */
function anyCase(s: string): string {
  return [...s].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))).join("");
}

/**
 * A link the validator takes for media of these extensions: an http(s) URL, a file:// URL or a path
 * (no scheme, or a one-letter drive), whose path (before `?` or `#`) ends in one of them, any case.
 */
function linkPattern(exts: readonly string[]): string {
  const ext = exts.map((e) => anyCase(e.slice(1))).join("|");
  const scheme = `(?:${anyCase("http")}[sS]?:\\/\\/[^\\s/?#]+|${anyCase("file")}:|(?![a-zA-Z][a-zA-Z0-9+.-]+:))`;
  return `^\\s*${scheme}[^?#]*\\.(?:${ext})(?:[?#].*)?\\s*$`;
}

const NON_BLANK = "\\S";
const nonBlankString = (description: string) => ({ type: ["string", "null"], pattern: NON_BLANK, description });

/** The plan's JSON Schema (draft 2020-12). */
export function planJsonSchema(): Record<string, unknown> {
  const silent = { type: "object", required: ["text"], properties: { text: { type: "null" } } };
  const media = {
    type: "object",
    description: "What is on screen during the sequence. Omit it to let automatic b-roll fill the slot (only when no sequence of the plan has media).",
    properties: {
      asset_id: nonBlankString("Library media id (an image or video asset of the space); wins over url."),
      url: { type: ["string", "null"], description: `Public image or video URL (${[...IMAGE_EXTENSIONS, ...VIDEO_EXTENSIONS].join(" ")}); a local file on the local target.` },
      show: { enum: [...MEDIA_SHOW, null], default: "hide", description: "How the media is shown: full screen, half, background, or hidden (default hide)." },
      trim_start: { type: ["number", "null"], minimum: 0, description: "Videos: start this many seconds into the clip." },
    },
    // asset_id wins over url: a url beside an asset_id is not judged; without one the url is needed and must be media.
    if: { required: ["asset_id"], properties: { asset_id: { type: "string" } } },
    else: {
      required: ["url"],
      properties: { url: { type: "string", pattern: linkPattern([...IMAGE_EXTENSIONS, ...VIDEO_EXTENSIONS]) } },
    },
  };
  const sequence = {
    type: "object",
    description: "One sequence: a sentence or two said in one look, or a silence.",
    required: ["text"],
    properties: {
      text: { type: ["string", "null"], pattern: NON_BLANK, description: "What is said; null makes a silent sequence (then duration_ms is required)." },
      duration_ms: {
        type: ["number", "null"],
        description: "Silent sequences only (required there): milliseconds of silence. Spoken sequences are timed from their audio.",
      },
      look_id: nonBlankString("Look of this sequence; overrides the block's look, then the request's avatar_id."),
      action: { type: ["string", "null"], description: "Avatar direction, applied by models that accept motion direction." },
      media: { $ref: "#/$defs/media" },
    },
    if: silent,
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable.
    then: { required: ["duration_ms"], properties: { duration_ms: { type: "number", exclusiveMinimum: 0, maximum: MAX_SILENT_MS } } },
    else: { properties: { duration_ms: { type: "null" } } },
  };
  const block = {
    type: "object",
    description: "A speech block: sequences in playback order, said by one voice.",
    required: ["sequences"],
    properties: {
      sequences: { type: "array", minItems: 1, items: { $ref: "#/$defs/sequence" }, description: "The block's sequences, in playback order." },
      voice_id: nonBlankString("Voice of the block (falls back to the request's voice_id); not allowed on a silent block."),
      look_id: nonBlankString("Default look of the block's sequences."),
      audio_url: {
        type: ["string", "null"],
        pattern: linkPattern(AUDIO_EXTENSIONS),
        description: `Speech supplied as audio (${AUDIO_EXTENSIONS.join(" ")}): skips voice generation.`,
      },
      parent_avatar_id: nonBlankString("Avatar the block's looks belong to."),
    },
    // A silent sequence is alone in its own block, with no voice_id (and no audio).
    if: { required: ["sequences"], properties: { sequences: { type: "array", contains: silent } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable.
    then: { properties: { sequences: { type: "array", maxItems: 1 }, voice_id: { type: "null" }, audio_url: { type: "null" } } },
  };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "urn:mediagen:schema:sequence-plan",
    title: "Sequence plan",
    description:
      "sequence_plan of POST /generation/start: speech blocks in playback order. `mediagen plan validate` also checks what a schema cannot: the total length (at most 600 s) and that ids exist.",
    type: "array",
    minItems: 1,
    items: { $ref: "#/$defs/block" },
    $defs: { block, sequence, media },
  };
}
