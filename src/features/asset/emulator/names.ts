/** File names of generated assets (spec: `file_name` is slugified server-side, extension appended). */

const MAX_SLUG = 80;
const PROMPT_WORDS = 6;

/** Lower-cases and replaces every run of non-alphanumerics with one hyphen, trimmed at both ends. */
export function slugify(text: string, max = MAX_SLUG): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.slice(0, max).replace(/-+$/g, "");
}

/**
 * The stored base name: the caller's `file_name` slugified, else the first words of the prompt,
 * else the model name (promptless models).
 */
export function assetBaseName(fileName: string | undefined, prompt: string, modelName: string): string {
  const fromName = fileName === undefined ? "" : slugify(fileName);
  if (fromName) return fromName;
  const fromPrompt = slugify(prompt.split(/\s+/).filter(Boolean).slice(0, PROMPT_WORDS).join(" "), 48);
  return fromPrompt || slugify(modelName) || "asset";
}

export function extensionFor(type: "image" | "video"): string {
  return type === "image" ? "png" : "mp4";
}
