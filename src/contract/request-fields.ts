/**
 * Request pieces the spec gives the same rules wherever they appear: media URLs judged by their
 * extension, webhook URLs, bounded whole numbers, and the reference item of asset start. Every
 * message is the problem without the field's name: the request check (./request-check.ts) puts the
 * field's path in front, so it reads `references[0].url must end in …`.
 */
import { z } from "zod";

export const IMAGE_EXTENSIONS = [".jpg", ".jpeg", ".png", ".webp"] as const;
export const VIDEO_EXTENSIONS = [".mp4", ".mov", ".webm", ".m4v"] as const;
export const AUDIO_EXTENSIONS = [".mp3", ".wav", ".m4a"] as const;
export const MEDIA_EXTENSIONS = [...IMAGE_EXTENSIONS, ...VIDEO_EXTENSIONS] as const;

/** The extension of a URL's path or of a file path (lower case, with its dot), "" when it has none. */
export function extensionOf(value: string): string {
  let p = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) {
    try {
      p = new URL(p).pathname;
    } catch {
      p = p.replace(/[?#].*$/, "");
    }
  }
  const base = p.slice(Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\")) + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/** A URL (or, for the local instance, a file) whose extension is one of `exts`. */
export function mediaUrl(exts: readonly string[], what: string) {
  return z
    .string()
    .trim()
    .min(1, { error: "must not be empty" })
    .refine((v) => exts.includes(extensionOf(v)), {
      error: (iss) => `must be ${what} (${exts.join(" ")})${extensionNote(iss.input)}`,
    });
}

function extensionNote(input: unknown): string {
  if (typeof input !== "string") return "";
  const ext = extensionOf(input);
  return ext ? `, got ${ext}` : ", got no extension";
}

export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/** `webhook_url`: a valid http(s) URL. */
export const WebhookUrl = z.string().refine(isHttpUrl, { error: "must be a valid http(s) URL" });

/** A URL the service fetches a web page from (script `urls`, generation web URLs). */
export const WebUrl = z.string().refine(isHttpUrl, { error: "must be an http(s) URL" });

/** A whole number from `min` to `max`, with the message the local instance has always given. */
export function wholeBetween(min: number, max: number, unit = "") {
  const msg = `must be a whole number from ${min} to ${max}${unit}`;
  return z.number({ error: `must be a number` }).int({ error: msg }).min(min, { error: msg }).max(max, { error: msg });
}

export const NonEmptyString = z.string().trim().min(1, { error: "must not be empty" });

const REF_KEYS = ["url", "asset_id", "avatar_id"] as const;

/**
 * A reference item of asset start: exactly one of `url` (images .jpg .jpeg .png .webp, videos .mp4
 * .mov .webm .m4v), `asset_id`, `avatar_id`.
 */
export const ReferenceInput = z
  .strictObject({
    url: mediaUrl(MEDIA_EXTENSIONS, "an image or a video").optional(),
    asset_id: NonEmptyString.optional(),
    avatar_id: NonEmptyString.optional(),
  })
  .refine((r) => REF_KEYS.filter((k) => r[k] !== undefined).length === 1, {
    error: "must have exactly one of url, asset_id, avatar_id",
  });
export type ReferenceInput = z.infer<typeof ReferenceInput>;

/** An image-only reference (element images). */
export const ImageReferenceInput = z
  .strictObject({
    url: mediaUrl(IMAGE_EXTENSIONS, "an image").optional(),
    asset_id: NonEmptyString.optional(),
    avatar_id: NonEmptyString.optional(),
  })
  .refine((r) => REF_KEYS.filter((k) => r[k] !== undefined).length === 1, {
    error: "must have exactly one of url, asset_id, avatar_id",
  });

/** Query booleans arrive as strings over HTTP and as booleans in process. */
export const QueryBoolInput = z.union([z.boolean(), z.enum(["true", "false", "1", "0"])], {
  error: "must be true or false",
});

/** A comma-separated filter (`tags`, `place`): a string, or in process a list of strings. */
export const ListFilter = z.union([z.string(), z.array(z.string())], { error: "must be a comma-separated list" });

/** `gender` filters: male or female, in any case; empty means no filter. */
export const GenderFilter = z.string().refine((v) => /^\s*(male|female)?\s*$/i.test(v), { error: "must be male or female" });
