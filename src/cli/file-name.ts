/**
 * Names for saved results (`download --name '{prompt}'`): a template of the job's fields, slugged
 * (lowercase letters, digits and hyphens, as the service slugs `file_name`), kept short, and made
 * unique in its directory (`-2`, `-3`…) so a name chosen for people never overwrites a file.
 */
import fs from "node:fs";
import path from "node:path";
import { CliError, EXIT } from "./types.js";

const FIELDS = ["prompt", "id", "kind", "model", "video_id", "date"] as const;
const MAX_SLUG = 60;

export function slug(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_SLUG)
    .replace(/-+$/, "");
}

/** Checks a template before anything is read: only known `{fields}`. */
export function checkTemplate(template: string, flag = "--name"): void {
  for (const m of template.matchAll(/\{([^}]*)\}/g)) {
    if (!(FIELDS as readonly string[]).includes(m[1]!)) {
      throw new CliError(`${flag}: unknown field {${m[1]}}; use ${FIELDS.map((f) => `{${f}}`).join(", ")}`, EXIT.usage, "invalid_value", flag);
    }
  }
}

/** The template filled and slugged; the id when nothing better is left (no prompt, say). */
export function nameFrom(template: string, fields: Partial<Record<(typeof FIELDS)[number], string | null | undefined>>, id: string): string {
  const filled = template.replace(/\{([^}]*)\}/g, (_, f: string) => fields[f as (typeof FIELDS)[number]] ?? "");
  return slug(filled) || slug(id) || "result";
}

/** `base.ext` in `dir`, or `base-2.ext`, `base-3.ext`… : the first that does not exist. */
export function uniqueName(dir: string, base: string, ext: string): string {
  for (let n = 1; ; n++) {
    const name = `${base}${n === 1 ? "" : `-${n}`}.${ext}`;
    if (!fs.existsSync(path.join(dir, name))) return name;
  }
}
