import { z } from "zod";
import { op } from "../../contract/operation.js";

export const MODEL_AVAILABLE = [
  "standard",
  "premium",
  "ultra",
  "omni-flash",
  "ora-lite",
  "ora-standard",
  "ora-pro",
  "vidA-3-fast",
  "vidA-3-lite",
  "vidB-2-fast",
  "vidB-2-5",
  "vidB-2-5-1080p",
] as const;

export const LookStatus = z.enum(["ready", "pending", "error"]);
export type LookStatus = z.infer<typeof LookStatus>;
export const LookFormat = z.enum(["vertical", "horizontal"]);
export type LookFormat = z.infer<typeof LookFormat>;
export const AVATAR_CREATE_STYLES = ["iphone", "selfie", "podcast", "car", "conference"] as const;
export const AVATAR_EDIT_STYLES = ["selfie", "podcast", "car", "iphone", "conference", "raw"] as const;
export const AVATAR_RESOLUTIONS = ["2K", "4K"] as const;

export const Look = z.looseObject({
  id: z.string(),
  name: z.string(),
  place: z.string(),
  accessories: z.array(z.string()),
  action: z.string(),
  emotion: z.string(),
  selfie: z.boolean(),
  format: LookFormat,
  thumbnail: z.string(),
  preview: z.string().nullable(),
  status: LookStatus,
  model_available: z.array(z.string()),
});
export type Look = z.infer<typeof Look>;

/** GET /avatar/{id}/look/{look_id}: the look plus its avatar's fields. */
export const LookDetail = Look.extend({
  avatar_id: z.string(),
  avatar_name: z.string(),
  look_name: z.string(),
  gender: z.string(),
  age_range: z.string(),
  ethnicity: z.string(),
  hair_color: z.string(),
  error_message: z.string().nullable(),
});
export type LookDetail = z.infer<typeof LookDetail>;

export const Avatar = z.looseObject({
  id: z.string(),
  name: z.string(),
  gender: z.enum(["male", "female"]),
  age: z.string(),
  age_range: z.string(),
  ethnicity: z.string(),
  hair_color: z.string(),
  thumbnail: z.string(),
  looks: z.array(Look),
  created_at: z.string().nullable(),
});
export type Avatar = z.infer<typeof Avatar>;

export const AvatarCreateRequest = z.looseObject({
  prompt: z.string().optional(),
  style: z.string().optional(),
  format: z.string().optional(),
  name: z.string().optional(),
  place: z.string().optional(),
  images: z.array(z.string()).optional(),
  elementImages: z.array(z.string()).optional(),
  elements: z.array(z.string()).optional(),
  resolution: z.string().optional(),
  webhook_url: z.string().optional(),
});
export type AvatarCreateRequest = z.infer<typeof AvatarCreateRequest>;

export const AvatarLookRef = z.looseObject({ avatar_id: z.string(), look_id: z.string() });
export type AvatarLookRef = z.infer<typeof AvatarLookRef>;

export const AvatarEditRequest = z.looseObject({
  avatar_id: z.string().optional(),
  look_id: z.string().optional(),
  prompt: z.string().optional(),
  format: z.string().optional(),
  style: z.string().optional(),
  imageUrls: z.array(z.string()).optional(),
  resolution: z.string().optional(),
  webhook_url: z.string().optional(),
});
export type AvatarEditRequest = z.infer<typeof AvatarEditRequest>;

export const AvatarStatusRequest = z.looseObject({
  avatar_id: z.string().optional(),
  look_id: z.string().optional(),
});
export type AvatarStatusRequest = z.infer<typeof AvatarStatusRequest>;

export const AvatarJobStatus = z.enum(["pending", "processing", "completed", "failed"]);
export const AvatarStatusResponse = z.looseObject({
  avatar_id: z.string(),
  look_id: z.string(),
  status: AvatarJobStatus,
  result: z
    .looseObject({
      id: z.string(),
      avatar_name: z.string(),
      look_name: z.string(),
      gender: z.string(),
      place: z.string(),
      accessories: z.array(z.string()),
      action: z.string(),
      emotion: z.string(),
      selfie: z.boolean(),
      format: z.string(),
      thumbnail: z.string(),
      model_available: z.array(z.string()),
    })
    .optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
});
export type AvatarStatusResponse = z.infer<typeof AvatarStatusResponse>;

export const AvatarGetRequest = z.looseObject({ avatar_id: z.string() });
export const AvatarLookRequest = z.looseObject({ avatar_id: z.string(), look_id: z.string() });

export const AvatarListRequest = z.looseObject({
  gender: z.string().optional(),
  age_range: z.string().optional(),
  ethnicity: z.string().optional(),
  hair_color: z.string().optional(),
  place: z.string().optional(),
  action: z.string().optional(),
  emotion: z.string().optional(),
  accessories: z.string().optional(),
  selfie: z.union([z.boolean(), z.string()]).optional(),
  onlyPublic: z.union([z.boolean(), z.string()]).optional(),
});
export type AvatarListRequest = z.infer<typeof AvatarListRequest>;

/** One item of GET /avatar/list: a look with its avatar's fields. */
export const AvatarListItem = z.looseObject({
  id: z.string(),
  avatar_id: z.string(),
  avatar_name: z.string(),
  look_name: z.string(),
  gender: z.string(),
  age_range: z.string(),
  ethnicity: z.string(),
  hair_color: z.string(),
  place: z.string(),
  accessories: z.array(z.string()),
  action: z.string(),
  emotion: z.string(),
  selfie: z.boolean(),
  format: z.string(),
  thumbnail: z.string(),
  preview: z.string().nullable(),
  model_available: z.array(z.string()),
});
export type AvatarListItem = z.infer<typeof AvatarListItem>;
export const AvatarListResponse = z.array(AvatarListItem);

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  avatarCreate: op({ method: "POST", path: "/avatar/create", status: 201, request: AvatarCreateRequest, response: AvatarLookRef, summary: "Create an avatar with its first look" }),
  avatarEdit: op({ method: "POST", path: "/avatar/edit", status: 201, request: AvatarEditRequest, response: AvatarLookRef, summary: "New look from an existing one" }),
  avatarStatus: op({ method: "GET", path: "/avatar/status", status: 200, request: AvatarStatusRequest, response: AvatarStatusResponse, summary: "Status of a look's generation" }),
  avatarList: op({ method: "GET", path: "/avatar/list", status: 200, request: AvatarListRequest, response: AvatarListResponse, summary: "List looks, space first" }),
  avatarLook: op({ method: "GET", path: "/avatar/{avatar_id}/look/{look_id}", status: 200, request: AvatarLookRequest, response: LookDetail, summary: "One look" }),
  avatarGet: op({ method: "GET", path: "/avatar/{avatar_id}", status: 200, request: AvatarGetRequest, response: Avatar, summary: "One avatar with its looks" }),
} as const;
