/**
 * Reference items of asset start (references, named slots, element images): exactly one of `url`,
 * `asset_id`, `avatar_id`; image/video extensions; asset ids of this space; avatar ids that resolve
 * to a thumbnail. Each item is resolved to something the renderer can open.
 */
import type { ModelDef } from "../catalog/models.js";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { IMAGE_EXTENSIONS, VIDEO_EXTENSIONS, type ReferenceItem } from "../../contract.js";
import type { ReferenceInput } from "../../../../contract/request-fields.js";
import { ApiError } from "../../../../engine/errors.js";
import type { MediaKind } from "../catalog/models.js";

export interface LibraryAsset {
  id: string;
  type: string;
  status: string;
  /** Absolute path of the asset's file (completed assets). */
  file: string | null;
  width: number | null;
  height: number | null;
  duration_seconds: number | null;
  folder_id: string | null;
}

/** What validation needs to look up, scoped to the requesting space. */
export interface StartLookups {
  asset(id: string): LibraryAsset | undefined;
  avatarThumbnail(avatarId: string): string | undefined;
  folder(id: string): { type: string } | undefined;
  fileExists(absPath: string): boolean;
  /** Relative local paths resolve against this directory. */
  cwd: string;
  /** Whether a `url` may name a file on this machine (RequestContext.allowLocalFiles). */
  allowLocalFiles: boolean;
  /**
   * Why a picture on this machine is refused by its size (a decompression bomb), read from its header
   * only; undefined when it is within the limits or is not a picture this can measure.
   */
  imageProblem?(absPath: string): string | undefined;
  /** The instance's model catalog (the synced one, else the built-in); default the built-in. */
  model?: (name: string) => ModelDef | undefined;
}

export interface ResolvedRef {
  /** As submitted, one key only: what `generation_params.references` shows. */
  item: ReferenceItem;
  kind: MediaKind;
  /** Absolute local path, or an http(s) URL the worker fetches. */
  source: string;
  /** Known for library assets. */
  durationSeconds?: number;
  width?: number;
  height?: number;
}

const KEYS = ["url", "asset_id", "avatar_id"] as const;
const invalid = (field: string, message: string) => ApiError.of("invalid_value", message, { field });

/**
 * Why a local path or file:// URL is refused when the request came over HTTP. Said before anything
 * looks at the file, so the answer is the same whether the path exists or not.
 */
export const LOCAL_FILES_REFUSED = "local files are not accepted over HTTP";

const EXT_HINT = `images ${IMAGE_EXTENSIONS.join(" ")}; videos ${VIDEO_EXTENSIONS.join(" ")}`;

export function kindOfExtension(ext: string): MediaKind | undefined {
  const e = ext.toLowerCase();
  if ((IMAGE_EXTENSIONS as readonly string[]).includes(e)) return "image";
  if ((VIDEO_EXTENSIONS as readonly string[]).includes(e)) return "video";
  return undefined;
}

function kindsText(kinds: readonly MediaKind[]): string {
  return kinds.length === 1 ? `an ${kinds[0]}` : kinds.map((k) => `an ${k}`).join(" or ");
}

/** A value that names a file on this machine (a path or a file:// URL, even a malformed one). */
export function isLocalRef(value: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value.trim())?.[1]?.toLowerCase();
  // One letter before ":" is a Windows drive, not a scheme.
  return !scheme || scheme.length === 1 || scheme === "file";
}

/** Where a `url` value points: a remote URL, or (local instance only) a file on this machine. */
export function locateUrl(value: string, cwd: string): { remote: string } | { local: string } | undefined {
  if (/^https?:\/\//i.test(value)) {
    try {
      return { remote: new URL(value).toString() };
    } catch {
      return undefined;
    }
  }
  if (/^file:\/\//i.test(value)) {
    try {
      return { local: fileURLToPath(value) };
    } catch {
      return undefined;
    }
  }
  // Any other scheme (data:, ftp:, s3:) is not something the instance can read.
  if (/^[a-z][a-z0-9+.-]+:/i.test(value) && !/^[a-z]:[\\/]/i.test(value)) return undefined;
  return { local: path.resolve(cwd, value) };
}

function extensionOf(location: { remote: string } | { local: string }): string {
  if ("remote" in location) return path.posix.extname(new URL(location.remote).pathname);
  return path.extname(location.local);
}

export interface RefRules {
  kinds: readonly MediaKind[];
  assetOnly?: boolean;
}

/**
 * One reference item the contract accepted (exactly one of `url`, `asset_id`, `avatar_id`, a media
 * extension): what it points at, judged against the slot or model (`rules`) and the space.
 */
export function resolveRef(raw: ReferenceInput, field: string, rules: RefRules, lookups: StartLookups): ResolvedRef {
  const key = KEYS.find((k) => raw[k] !== undefined)!;
  const value = raw[key]!;
  if (rules.assetOnly && key !== "asset_id") {
    throw invalid(field, `${field} must be an asset_id of this space`);
  }

  if (key === "url") {
    if (!lookups.allowLocalFiles && isLocalRef(value)) {
      throw invalid(`${field}.url`, `${field}.url: ${LOCAL_FILES_REFUSED}; use an http(s) URL or an asset id`);
    }
    const location = locateUrl(value, lookups.cwd);
    if (!location) {
      throw invalid(`${field}.url`, `${field}.url must be an http(s) URL${lookups.allowLocalFiles ? " or a local file" : " or an asset id"}`);
    }
    const kind = kindOfExtension(extensionOf(location));
    if (!kind || !rules.kinds.includes(kind)) throw invalid(`${field}.url`, `${field}.url must be ${kindsText(rules.kinds)} (${EXT_HINT})`);
    if ("local" in location && !lookups.fileExists(location.local)) {
      throw invalid(`${field}.url`, `${field}.url: file not found`);
    }
    const problem = "local" in location && kind === "image" ? lookups.imageProblem?.(location.local) : undefined;
    if (problem) throw invalid(`${field}.url`, `${field}.url: ${problem}`);
    return { item: { url: value }, kind, source: "remote" in location ? location.remote : location.local };
  }

  if (key === "asset_id") {
    const asset = lookups.asset(value);
    if (!asset) throw invalid(`${field}.asset_id`, `${field}.asset_id: asset not found in this space`);
    if (asset.status !== "completed" || !asset.file) {
      throw invalid(`${field}.asset_id`, `${field}.asset_id: asset is ${asset.status}, not completed`);
    }
    const kind = asset.type as MediaKind;
    if (!rules.kinds.includes(kind)) throw invalid(`${field}.asset_id`, `${field}.asset_id must be ${kindsText(rules.kinds)} asset`);
    const ref: ResolvedRef = { item: { asset_id: value }, kind, source: asset.file };
    if (asset.duration_seconds !== null) ref.durationSeconds = asset.duration_seconds;
    if (asset.width !== null) ref.width = asset.width;
    if (asset.height !== null) ref.height = asset.height;
    return ref;
  }

  if (!rules.kinds.includes("image")) {
    throw invalid(`${field}.avatar_id`, `${field} must be ${kindsText(rules.kinds)}; an avatar_id gives an image`);
  }
  const thumb = lookups.avatarThumbnail(value);
  if (!thumb) throw invalid(`${field}.avatar_id`, `${field}.avatar_id: avatar not found`);
  const problem = lookups.imageProblem?.(thumb);
  if (problem) throw invalid(`${field}.avatar_id`, `${field}.avatar_id: ${problem}`);
  return { item: { avatar_id: value }, kind: "image", source: thumb };
}
