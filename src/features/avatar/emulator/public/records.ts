/**
 * Reads avatars and looks (space rows and the public catalog) into one view, and shapes that view
 * as the spec's records: Look, the single-look record, Avatar, the list item, the status result.
 */
import type { Avatar, AvatarListItem, AvatarStatusResponse, Look, LookDetail, ResourceAvatar } from "../../contract.js";
import type { DB, UrlBuilder } from "../../../../local/types.js";
import { publicAvatar, publicAvatars } from "../public-catalog.js";
import { catalogLookImageRel, type CatalogAvatar, type CatalogLook, type LookTraits } from "./catalog.js";

export interface AvatarRow {
  seq: number;
  id: string;
  space_id: string;
  name: string;
  gender: "male" | "female";
  age: string;
  age_range: string;
  ethnicity: string;
  hair_color: string;
  created_at: string;
}

export interface LookRow {
  seq: number;
  id: string;
  space_id: string;
  avatar_id: string;
  task: "avatar_create" | "avatar_edit";
  name: string;
  place: string;
  accessories: string;
  action: string;
  emotion: string;
  selfie: number;
  format: "vertical" | "horizontal";
  style: string | null;
  resolution: string | null;
  prompt: string | null;
  source_look_id: string | null;
  model_available: string;
  status: "ready" | "pending" | "error";
  image_path: string | null;
  width: number | null;
  height: number | null;
  error_code: string | null;
  error_message: string | null;
  cost_milli: number;
  webhook_url: string | null;
  /** JSON list of strings (migration 11). */
  tags: string;
  created_at: string;
  updated_at: string;
}

type Person = Pick<AvatarRow, "id" | "name" | "gender" | "age" | "age_range" | "ethnicity" | "hair_color"> & {
  created_at: string | null;
};

/** One look with its avatar, wherever either lives. */
export interface LookView extends LookTraits {
  avatar: Person;
  id: string;
  model_available: string[];
  tags: string[];
  status: "ready" | "pending" | "error";
  /** Media-dir-relative path of the picture; null until the look is ready. */
  imageRel: string | null;
  error_code: string | null;
  error_message: string | null;
  /** The catalog look this view is (its picture is made on first need), if any. */
  catalog?: { avatar: CatalogAvatar; look: CatalogLook };
  /** The space row this view is, if any. */
  row?: LookRow;
}

/** An avatar with its looks, wherever it lives. */
export interface AvatarView {
  person: Person;
  /** True for a space avatar; a catalog avatar may still carry space looks (edits). */
  inSpace: boolean;
  looks: LookView[];
}

function personOfCatalog(a: CatalogAvatar): Person {
  const { id, name, gender, age, age_range, ethnicity, hair_color } = a;
  return { id, name, gender, age, age_range, ethnicity, hair_color, created_at: null };
}

function personOfRow(a: AvatarRow): Person {
  const { id, name, gender, age, age_range, ethnicity, hair_color, created_at } = a;
  return { id, name, gender, age, age_range, ethnicity, hair_color, created_at };
}

export function viewOfCatalogLook(avatar: CatalogAvatar, look: CatalogLook): LookView {
  return {
    avatar: personOfCatalog(avatar),
    id: look.id,
    name: look.name,
    place: look.place,
    accessories: [...look.accessories],
    action: look.action,
    emotion: look.emotion,
    selfie: look.selfie,
    format: look.format,
    model_available: [...look.model_available],
    tags: [...(look.tags ?? [])],
    status: "ready",
    imageRel: catalogLookImageRel(look),
    error_code: null,
    error_message: null,
    catalog: { avatar, look },
  };
}

export function viewOfLookRow(person: Person, row: LookRow): LookView {
  return {
    avatar: person,
    id: row.id,
    name: row.name,
    place: row.place,
    accessories: JSON.parse(row.accessories) as string[],
    action: row.action,
    emotion: row.emotion,
    selfie: row.selfie === 1,
    format: row.format,
    model_available: JSON.parse(row.model_available) as string[],
    tags: JSON.parse(row.tags ?? "[]") as string[],
    status: row.status,
    imageRel: row.status === "ready" ? row.image_path : null,
    error_code: row.error_code,
    error_message: row.error_message,
    row,
  };
}

function spaceLookRows(db: DB, spaceId: string, avatarId: string): LookRow[] {
  return db.prepare(`SELECT * FROM looks WHERE avatar_id = ? AND space_id = ? ORDER BY seq`).all(avatarId, spaceId) as LookRow[];
}

/** The avatar as this space sees it: its own, or the catalog's plus the space's looks on it. */
export function findAvatar(db: DB, spaceId: string, avatarId: string): AvatarView | undefined {
  const row = db.prepare(`SELECT * FROM avatars WHERE id = ? AND space_id = ?`).get(avatarId, spaceId) as AvatarRow | undefined;
  if (row) {
    const person = personOfRow(row);
    return { person, inSpace: true, looks: spaceLookRows(db, spaceId, avatarId).map((l) => viewOfLookRow(person, l)) };
  }
  const cat = publicAvatar(db, avatarId);
  if (!cat) return undefined;
  const person = personOfCatalog(cat);
  return {
    person,
    inSpace: false,
    looks: [...cat.looks.map((l) => viewOfCatalogLook(cat, l)), ...spaceLookRows(db, spaceId, avatarId).map((l) => viewOfLookRow(person, l))],
  };
}

/** Every look the space sees, space looks first (in creation order), then the catalog's. */
export function allLookViews(db: DB, spaceId: string, onlyPublic: boolean): LookView[] {
  const out: LookView[] = [];
  if (!onlyPublic) {
    const rows = db.prepare(`SELECT * FROM looks WHERE space_id = ? ORDER BY seq`).all(spaceId) as LookRow[];
    const people = new Map<string, Person | undefined>();
    for (const r of rows) {
      if (!people.has(r.avatar_id)) {
        const a = db.prepare(`SELECT * FROM avatars WHERE id = ? AND space_id = ?`).get(r.avatar_id, spaceId) as AvatarRow | undefined;
        const cat = a ? undefined : publicAvatar(db, r.avatar_id);
        people.set(r.avatar_id, a ? personOfRow(a) : cat ? personOfCatalog(cat) : undefined);
      }
      const person = people.get(r.avatar_id);
      if (person) out.push(viewOfLookRow(person, r));
    }
  }
  for (const a of publicAvatars(db)) for (const l of a.looks) out.push(viewOfCatalogLook(a, l));
  return out;
}

/** A look's picture URL, or undefined while it has none (pending or failed looks). */
function thumbnailOf(v: LookView, urls: UrlBuilder): string | undefined {
  return v.imageRel ? urls.media(v.imageRel) : undefined;
}

/** `{thumbnail}` when the look has a picture: a URL or absent, never "" (spec: thumbnail is a URL). */
function thumbnailField(v: LookView | undefined, urls: UrlBuilder): { thumbnail?: string } {
  const url = v ? thumbnailOf(v, urls) : undefined;
  return url !== undefined ? { thumbnail: url } : {};
}

/** The person a look belongs to, as the single-look record and the list item both name it. */
function whoseLook(v: LookView) {
  return {
    avatar_id: v.avatar.id,
    avatar_name: v.avatar.name,
    look_name: v.name,
    gender: v.avatar.gender,
    age_range: v.avatar.age_range,
    ethnicity: v.avatar.ethnicity,
    hair_color: v.avatar.hair_color,
  };
}

/** What a look shows, as every record of a look carries it. */
function shownBy(v: LookView) {
  return { place: v.place, accessories: v.accessories, action: v.action, emotion: v.emotion, selfie: v.selfie, format: v.format };
}

export function toLook(v: LookView, urls: UrlBuilder): Look {
  return {
    id: v.id,
    name: v.name,
    ...shownBy(v),
    ...thumbnailField(v, urls),
    preview: null,
    status: v.status,
    model_available: v.model_available,
  };
}

export function toLookDetail(v: LookView, urls: UrlBuilder): LookDetail {
  return {
    ...toLook(v, urls),
    ...whoseLook(v),
    error_message: v.status === "error" ? (v.error_message ?? "Look generation failed") : null,
  };
}

export function toListItem(v: LookView, urls: UrlBuilder): AvatarListItem {
  return {
    id: v.id,
    ...whoseLook(v),
    ...shownBy(v),
    ...thumbnailField(v, urls),
    preview: null,
    model_available: v.model_available,
    tags: v.tags,
  };
}

/** One item of the legacy listing (GET /resources/avatars). */
export function toResourceAvatar(v: LookView, urls: UrlBuilder): ResourceAvatar {
  return {
    id: v.id,
    avatar_name: v.avatar.name,
    look_name: v.name,
    gender: v.avatar.gender,
    place: v.place,
    format: v.format,
    tags: v.tags,
    ...thumbnailField(v, urls),
    preview: null,
    model_available: v.model_available,
  };
}

/** The avatar's picture: its first ready look's. */
export function toAvatar(a: AvatarView, urls: UrlBuilder): Avatar {
  const firstReady = a.looks.find((l) => l.status === "ready");
  return {
    id: a.person.id,
    name: a.person.name,
    gender: a.person.gender,
    age: a.person.age,
    age_range: a.person.age_range,
    ethnicity: a.person.ethnicity,
    hair_color: a.person.hair_color,
    ...thumbnailField(firstReady, urls),
    looks: a.looks.map((l) => toLook(l, urls)),
    created_at: a.person.created_at,
  };
}

export function toStatusResult(v: LookView, urls: UrlBuilder): NonNullable<AvatarStatusResponse["result"]> {
  return {
    id: v.id,
    avatar_name: v.avatar.name,
    look_name: v.name,
    gender: v.avatar.gender,
    ...shownBy(v),
    // A status result exists for a completed (ready) look only, which has its picture.
    thumbnail: thumbnailOf(v, urls) ?? "",
    model_available: v.model_available,
  };
}

/** The catalog looks among these views, so their pictures can be made before URLs are handed out. */
export function catalogItems(views: readonly LookView[]): { avatar: CatalogAvatar; look: CatalogLook }[] {
  return views.flatMap((v) => (v.catalog ? [v.catalog] : []));
}
