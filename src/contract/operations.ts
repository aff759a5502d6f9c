import { z } from "zod";
import * as asset from "./asset.js";
import * as avatar from "./avatar.js";
import * as voice from "./voice.js";
import * as folder from "./folder.js";
import * as generation from "./generation.js";
import * as exp from "./export.js";
import * as video from "./video.js";
import * as script from "./script.js";

export const API_PREFIX = "/api/public/v1";

export interface OperationDef {
  method: "GET" | "POST";
  /** Path under the API prefix; `{x}` segments are filled from the input field `x`. */
  path: string;
  /** Success status. */
  status: 200 | 201;
  request: z.ZodType;
  response: z.ZodType;
  /** Other paths the service answers for the same operation. */
  aliases?: string[];
  /** One line for docs and `--help`. */
  summary: string;
}

function op<Req extends z.ZodType, Res extends z.ZodType>(
  def: Omit<OperationDef, "request" | "response"> & { request: Req; response: Res },
) {
  return def;
}

/**
 * Every operation of the service: method, path, success status, request and response schemas.
 * The server routes, the hosted client builds requests and the `Engine` interface is typed from this
 * one table. Literal paths come before parameterised ones sharing a prefix (route order).
 */
export const operations = {
  assetModels: op({ method: "GET", path: "/asset/models", status: 200, request: asset.ModelListRequest, response: asset.ModelListResponse, summary: "List models" }),
  assetModel: op({ method: "GET", path: "/asset/models/{name}", status: 200, request: asset.ModelGetRequest, response: asset.ModelDetail, aliases: ["/models/{name}"], summary: "One model with its input_schema" }),
  assetPricing: op({ method: "POST", path: "/asset/pricing", status: 200, request: asset.AssetPricingRequest, response: asset.AssetPricingResponse, summary: "Dry-run price of an asset generation" }),
  assetStart: op({ method: "POST", path: "/asset/start", status: 201, request: asset.AssetStartRequest, response: asset.AssetStartResponse, summary: "Start image or video generation" }),
  assetStatus: op({ method: "GET", path: "/asset/status/{assetId}", status: 200, request: asset.AssetStatusRequest, response: asset.Asset, summary: "Status of one asset" }),
  avatarCreate: op({ method: "POST", path: "/avatar/create", status: 201, request: avatar.AvatarCreateRequest, response: avatar.AvatarLookRef, summary: "Create an avatar with its first look" }),
  avatarEdit: op({ method: "POST", path: "/avatar/edit", status: 201, request: avatar.AvatarEditRequest, response: avatar.AvatarLookRef, summary: "New look from an existing one" }),
  avatarStatus: op({ method: "GET", path: "/avatar/status", status: 200, request: avatar.AvatarStatusRequest, response: avatar.AvatarStatusResponse, summary: "Status of a look's generation" }),
  avatarList: op({ method: "GET", path: "/avatar/list", status: 200, request: avatar.AvatarListRequest, response: avatar.AvatarListResponse, summary: "List looks, space first" }),
  avatarLook: op({ method: "GET", path: "/avatar/{avatar_id}/look/{look_id}", status: 200, request: avatar.AvatarLookRequest, response: avatar.LookDetail, summary: "One look" }),
  avatarGet: op({ method: "GET", path: "/avatar/{avatar_id}", status: 200, request: avatar.AvatarGetRequest, response: avatar.Avatar, summary: "One avatar with its looks" }),
  voiceList: op({ method: "GET", path: "/voice/list", status: 200, request: voice.VoiceListRequest, response: voice.VoiceListResponse, summary: "List voices, space first" }),
  voiceGet: op({ method: "GET", path: "/voice/{id}", status: 200, request: voice.VoiceGetRequest, response: voice.Voice, summary: "One voice" }),
  resourceVoices: op({ method: "GET", path: "/resources/voices", status: 200, request: voice.ResourceVoicesRequest, response: voice.ResourceVoicesResponse, summary: "Voices with accent and preview" }),
  folderCreate: op({ method: "POST", path: "/folder/create", status: 201, request: folder.FolderCreateRequest, response: folder.Folder, summary: "Create a folder" }),
  folderList: op({ method: "GET", path: "/folder/list", status: 200, request: folder.FolderListRequest, response: folder.FolderListResponse, summary: "List folders" }),
  generationStart: op({ method: "POST", path: "/generation/start", status: 201, request: generation.GenerationStartRequest, response: generation.GenerationStartResponse, summary: "Start a video generation job" }),
  generationStatus: op({ method: "GET", path: "/generation/status/{job_id}", status: 200, request: generation.GenerationStatusRequest, response: generation.GenerationStatusResponse, summary: "Status of a generation job" }),
  exportStart: op({ method: "POST", path: "/export/start", status: 201, request: exp.ExportStartRequest, response: exp.ExportStartResponse, summary: "Start an export job" }),
  exportStatus: op({ method: "GET", path: "/export/status/{job_id}", status: 200, request: exp.ExportStatusRequest, response: exp.ExportJob, summary: "Status of an export job" }),
  videoDuplicate: op({ method: "POST", path: "/video/duplicate", status: 201, request: video.VideoDuplicateRequest, response: video.VideoDuplicateResponse, summary: "Duplicate a completed video" }),
  scriptGenerate: op({ method: "POST", path: "/script/generate", status: 200, request: script.ScriptGenerateRequest, response: script.ScriptGenerateResponse, summary: "Generate a video script" }),
} as const;

export type Operations = typeof operations;
export type OpName = keyof Operations;
export type OpRequest<K extends OpName> = K extends "scriptGenerate"
  ? script.ScriptGenerateRequest
  : z.input<Operations[K]["request"]>;
export type OpResponse<K extends OpName> = z.output<Operations[K]["response"]>;

/** Names of the `{x}` parameters in a path template. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/**
 * Fills a path template from an input object; the rest of the input is returned. Throws a TypeError
 * (`missing path parameter x` / `invalid path parameter x`) for a value that would address another
 * path: empty, or `.`/`..`, which URL resolution turns into a parent path.
 */
export function fillPath(path: string, input: Record<string, unknown>): { path: string; rest: Record<string, unknown> } {
  const rest: Record<string, unknown> = { ...input };
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = rest[name];
    delete rest[name];
    if (v === undefined || v === null || v === "") throw new TypeError(`missing path parameter ${name}`);
    const s = String(v);
    if (s === "." || s === "..") throw new TypeError(`invalid path parameter ${name}: "${s}" names another path`);
    return encodeURIComponent(s);
  });
  return { path: filled, rest };
}

export interface RouteMatch {
  op: OpName;
  params: Record<string, string>;
}

const compiled = (Object.keys(operations) as OpName[]).flatMap((name) => {
  const def: OperationDef = operations[name];
  return [def.path, ...(def.aliases ?? [])].map((p) => {
    const names = pathParams(p);
    const re = new RegExp("^" + p.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, "([^/]+)") + "/?$");
    return { name, method: def.method, re, names };
  });
});

/**
 * Matches a path (under the prefix) to an operation. Returns `undefined` for unknown paths and
 * `{ allowed }` when the path exists with other methods only.
 */
export function matchRoute(
  method: string,
  path: string,
): RouteMatch | { allowed: string[] } | undefined {
  const allowed = new Set<string>();
  for (const r of compiled) {
    const m = r.re.exec(path);
    if (!m) continue;
    if (r.method !== method) {
      allowed.add(r.method);
      continue;
    }
    const params: Record<string, string> = {};
    r.names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1]!);
    });
    return { op: r.name, params };
  }
  return allowed.size ? { allowed: [...allowed] } : undefined;
}
