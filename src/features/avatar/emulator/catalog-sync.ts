/**
 * Public avatars copied from the hosted service (`mediagen local catalog sync --avatars`), so a plan
 * written against the hosted target names looks the local instance has, under the same ids, with
 * their real pictures. Pure conversion here; the command fetches the records (GET /avatar/list with
 * onlyPublic, then GET /avatar/{id} for each avatar) and copies each look's thumbnail into the media
 * dir. An avatar or look that cannot be used locally is listed as skipped, never guessed.
 */
import type { LookFormat } from "../contract.js";
import type { CatalogAvatar, CatalogLook } from "./public/catalog.js";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown, dflt = ""): string => (typeof v === "string" ? v : dflt);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

export interface SkippedItem {
  name: string;
  reason: string;
}

/** A look's picture to copy: from the hosted URL into `rel` (media-dir-relative). */
export interface PictureCopy {
  lookId: string;
  url: string;
  rel: string;
}

/** Where copied look pictures live in the media dir (the extension is the picture's real type). */
export const HOSTED_LOOKS_DIR = "catalog/hosted/looks";

/** A file name safe in any media dir, from a look id (ids are opaque: other characters become `_`). */
export function pictureBaseName(lookId: string): string {
  return (
    lookId
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .replace(/^\.+/, "_")
      .slice(0, 120) || "_"
  );
}

/** The public avatar ids of a GET /avatar/list?onlyPublic=true answer, in order of first appearance. */
export function publicAvatarIds(list: unknown): string[] {
  const ids: string[] = [];
  for (const item of Array.isArray(list) ? list : []) {
    const id = isObj(item) ? item.avatar_id : undefined;
    if (typeof id === "string" && id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

function lookOf(l: Json): CatalogLook | SkippedItem {
  const id = str(l.id);
  if (!id) return { name: "look (no id)", reason: "the record has no id" };
  if (l.status !== undefined && l.status !== "ready") return { name: `look ${id}`, reason: `it is ${str(l.status, "not ready")}, not ready` };
  if (!str(l.thumbnail)) return { name: `look ${id}`, reason: "it has no thumbnail picture" };
  const format: LookFormat = l.format === "horizontal" ? "horizontal" : "vertical";
  return {
    id,
    name: str(l.name, id),
    place: str(l.place),
    accessories: strings(l.accessories),
    action: str(l.action),
    emotion: str(l.emotion),
    selfie: l.selfie === true,
    format,
    model_available: strings(l.model_available),
    tags: strings(l.tags),
    description: str(l.name, id),
  };
}

/**
 * Hosted Avatar records (GET /avatar/{id}) as local public avatars, and the pictures to copy. An
 * avatar needs a gender (the spec's male|female) and at least one usable look.
 */
export function convertAvatars(records: readonly unknown[]): { avatars: CatalogAvatar[]; pictures: PictureCopy[]; skipped: SkippedItem[] } {
  const avatars: CatalogAvatar[] = [];
  const pictures: PictureCopy[] = [];
  const skipped: SkippedItem[] = [];
  for (const r of records) {
    if (!isObj(r) || !str(r.id)) {
      skipped.push({ name: "avatar (no id)", reason: "the record has no id" });
      continue;
    }
    const id = str(r.id);
    if (r.gender !== "male" && r.gender !== "female") {
      skipped.push({ name: `avatar ${id}`, reason: `gender ${JSON.stringify(r.gender)} is not male or female` });
      continue;
    }
    const looks: CatalogLook[] = [];
    for (const l of Array.isArray(r.looks) ? r.looks : []) {
      const look = isObj(l) ? lookOf(l) : { name: `look of ${id}`, reason: "not an object" };
      if ("reason" in look) skipped.push(look);
      else {
        looks.push(look);
        pictures.push({ lookId: look.id, url: str((l as Json).thumbnail), rel: `${HOSTED_LOOKS_DIR}/${pictureBaseName(look.id)}` });
      }
    }
    if (!looks.length) {
      skipped.push({ name: `avatar ${id}`, reason: "none of its looks can be used" });
      continue;
    }
    avatars.push({
      id,
      name: str(r.name, id),
      gender: r.gender,
      age: str(r.age),
      age_range: str(r.age_range),
      ethnicity: str(r.ethnicity),
      hair_color: str(r.hair_color),
      looks,
    });
  }
  return { avatars, pictures, skipped };
}

/** The picture type of a copied file, from its first bytes: the extension it is stored under. */
export function pictureExtension(head: Buffer): "png" | "jpg" | "webp" | undefined {
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47) return "png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpg";
  if (head.length >= 12 && head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") return "webp";
  return undefined;
}

/**
 * Keeps the looks whose picture was copied (`copied`: look id → media-dir-relative file) and drops
 * avatars left without looks; the others are listed as skipped with `failed`'s reason.
 */
export function withPictures(
  avatars: readonly CatalogAvatar[],
  copied: ReadonlyMap<string, string>,
  failed: ReadonlyMap<string, string>,
): { avatars: CatalogAvatar[]; skipped: SkippedItem[] } {
  const out: CatalogAvatar[] = [];
  const skipped: SkippedItem[] = [];
  for (const a of avatars) {
    const looks = a.looks.flatMap((l) => {
      const image = copied.get(l.id);
      if (image) return [{ ...l, image }];
      skipped.push({ name: `look ${l.id}`, reason: failed.get(l.id) ?? "its picture could not be copied" });
      return [];
    });
    if (looks.length) out.push({ ...a, looks });
    else skipped.push({ name: `avatar ${a.id}`, reason: "none of its looks' pictures could be copied" });
  }
  return { avatars: out, skipped };
}
