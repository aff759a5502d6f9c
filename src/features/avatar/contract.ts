import { z } from "zod";
import { op } from "../../contract/operation.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { GenderFilter, IMAGE_EXTENSIONS, ListFilter, NonEmptyString, QueryBoolInput, WebhookUrl, mediaUrl } from "../../contract/request-fields.js";

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

/** A look is known by its id; the rest may be absent or null (a look without an id is left out of a list). */
export const Look = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  place: z.string().nullish(),
  accessories: z.array(z.string()).nullish(),
  action: z.string().nullish(),
  emotion: z.string().nullish(),
  selfie: z.boolean().nullish(),
  format: LookFormat.nullish(),
  /** A URL; a pending look may have none yet (absent, never ""). */
  thumbnail: z.string().min(1).nullish(),
  preview: z.string().nullish(),
  status: LookStatus.nullish(),
  model_available: z.array(z.string()).nullish(),
});
export type Look = z.infer<typeof Look>;

/** GET /avatar/{id}/look/{look_id}: the look plus its avatar's fields. */
export const LookDetail = Look.extend({
  avatar_id: z.string().nullish(),
  avatar_name: z.string().nullish(),
  look_name: z.string().nullish(),
  gender: z.string().nullish(),
  age_range: z.string().nullish(),
  ethnicity: z.string().nullish(),
  hair_color: z.string().nullish(),
  error_message: z.string().nullish(),
});
export type LookDetail = z.infer<typeof LookDetail>;

export const Avatar = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  gender: z.enum(["male", "female"]).nullish(),
  age: z.string().nullish(),
  age_range: z.string().nullish(),
  ethnicity: z.string().nullish(),
  hair_color: z.string().nullish(),
  /** Its first ready look's picture; absent while no look is ready. */
  thumbnail: z.string().min(1).nullish(),
  looks: z.array(Look).nullish(),
  created_at: z.string().nullish(),
});
export type Avatar = z.infer<typeof Avatar>;

const ImageUrl = mediaUrl(IMAGE_EXTENSIONS, "an image");
const hasText = (v: unknown) => typeof v === "string" && v.trim() !== "";

/**
 * POST /avatar/create: prompt-based (prompt, with format and element images) or image-based (images,
 * used as-is); `format` and element images belong to prompt-based creation only.
 */
export const AvatarCreateRequest = z
  .strictObject({
    prompt: z.string().optional(),
    style: z.enum(AVATAR_CREATE_STYLES, { error: `must be one of: ${AVATAR_CREATE_STYLES.join(", ")}` }).optional(),
    format: LookFormat.optional(),
    name: z.string().optional(),
    place: z.string().optional(),
    images: z.array(ImageUrl).optional(),
    elementImages: z.array(ImageUrl).optional(),
    elements: z.array(ImageUrl).optional(),
    resolution: z.enum(AVATAR_RESOLUTIONS, { error: "must be 2K or 4K" }).optional(),
    webhook_url: WebhookUrl.optional(),
  })
  .superRefine((req, ctx) => {
    if (hasText(req.prompt)) return;
    for (const key of ["format", "elementImages", "elements"] as const) {
      if (req[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: `${key} is only accepted with a prompt (prompt-based creation)` });
    }
    if (!req.images?.length) ctx.addIssue({ code: "custom", path: ["prompt"], message: "prompt is required when no images are given" });
  });
export type AvatarCreateRequest = z.input<typeof AvatarCreateRequest>;

export const AvatarLookRef = z.looseObject({ avatar_id: z.string(), look_id: z.string() });
export type AvatarLookRef = z.infer<typeof AvatarLookRef>;

export const AvatarEditRequest = z.strictObject({
  avatar_id: NonEmptyString,
  look_id: NonEmptyString,
  prompt: NonEmptyString,
  format: LookFormat.optional(),
  style: z.enum(AVATAR_EDIT_STYLES, { error: `must be one of: ${AVATAR_EDIT_STYLES.join(", ")}` }).optional(),
  imageUrls: z.array(ImageUrl).optional(),
  resolution: z.enum(AVATAR_RESOLUTIONS, { error: "must be 2K or 4K" }).optional(),
  webhook_url: WebhookUrl.optional(),
});
export type AvatarEditRequest = z.input<typeof AvatarEditRequest>;

export const AvatarStatusRequest = z.strictObject({
  avatar_id: NonEmptyString,
  look_id: NonEmptyString,
});
export type AvatarStatusRequest = z.input<typeof AvatarStatusRequest>;

export const AvatarJobStatus = z.enum(["pending", "processing", "completed", "failed"]);
/** A look's generation status: a wait reads its status (and the look once completed); only the status is needed. */
export const AvatarStatusResponse = z.looseObject({
  avatar_id: z.string().nullish(),
  look_id: z.string().nullish(),
  status: AvatarJobStatus,
  result: z
    .looseObject({
      id: z.string().nullish(),
      avatar_name: z.string().nullish(),
      look_name: z.string().nullish(),
      gender: z.string().nullish(),
      place: z.string().nullish(),
      accessories: z.array(z.string()).nullish(),
      action: z.string().nullish(),
      emotion: z.string().nullish(),
      selfie: z.boolean().nullish(),
      format: z.string().nullish(),
      thumbnail: z.string().nullish(),
      model_available: z.array(z.string()).nullish(),
    })
    .nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
export type AvatarStatusResponse = z.infer<typeof AvatarStatusResponse>;

export const AvatarGetRequest = z.strictObject({ avatar_id: NonEmptyString });
export const AvatarLookRequest = z.strictObject({ avatar_id: NonEmptyString, look_id: NonEmptyString });

export const AvatarListRequest = z.strictObject({
  gender: GenderFilter.optional(),
  age_range: ListFilter.optional(),
  ethnicity: ListFilter.optional(),
  hair_color: ListFilter.optional(),
  place: ListFilter.optional(),
  action: ListFilter.optional(),
  emotion: ListFilter.optional(),
  accessories: ListFilter.optional(),
  selfie: QueryBoolInput.optional(),
  onlyPublic: QueryBoolInput.optional(),
});
export type AvatarListRequest = z.input<typeof AvatarListRequest>;

/** One item of GET /avatar/list: a look with its avatar's fields. */
/** A look is known by its id (and its avatar's, to read it); an entry without an id is left out of the listing. */
export const AvatarListItem = z.looseObject({
  id: z.string(),
  avatar_id: z.string().nullish(),
  avatar_name: z.string().nullish(),
  look_name: z.string().nullish(),
  gender: z.string().nullish(),
  age_range: z.string().nullish(),
  ethnicity: z.string().nullish(),
  hair_color: z.string().nullish(),
  place: z.string().nullish(),
  accessories: z.array(z.string()).nullish(),
  action: z.string().nullish(),
  emotion: z.string().nullish(),
  selfie: z.boolean().nullish(),
  format: z.string().nullish(),
  thumbnail: z.string().min(1).nullish(),
  preview: z.string().nullish(),
  model_available: z.array(z.string()).nullish(),
});
export type AvatarListItem = z.infer<typeof AvatarListItem>;
export const AvatarListResponse = z.array(AvatarListItem);

/** The spec's codes for a bad request: INVALID_VALUE on create and status; MISSING_* on edit. */
const AVATAR_CODES: RequestCodes = { missing: "INVALID_VALUE", invalid: "INVALID_VALUE" };
export const requestCodes = {
  avatarCreate: AVATAR_CODES,
  avatarEdit: {
    missing: "INVALID_VALUE",
    invalid: "INVALID_VALUE",
    missingOf: { avatar_id: "MISSING_AVATAR_ID", look_id: "MISSING_LOOK_ID", prompt: "MISSING_PROMPT" },
    invalidOf: { webhook_url: "INVALID_WEBHOOK_URL" },
  },
  avatarStatus: AVATAR_CODES,
  avatarList: { missing: "invalid_value", invalid: "invalid_value" },
  avatarLook: { missing: "NOT_FOUND", invalid: "NOT_FOUND" },
  avatarGet: { missing: "NOT_FOUND", invalid: "NOT_FOUND" },
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  avatarCreate: op({
    method: "POST",
    path: "/avatar/create",
    status: 201,
    request: AvatarCreateRequest,
    response: AvatarLookRef,
    summary: "Create an avatar with its first look",
  }),
  avatarEdit: op({ method: "POST", path: "/avatar/edit", status: 201, request: AvatarEditRequest, response: AvatarLookRef, summary: "New look from an existing one" }),
  avatarStatus: op({
    method: "GET",
    path: "/avatar/status",
    status: 200,
    request: AvatarStatusRequest,
    response: AvatarStatusResponse,
    summary: "Status of a look's generation",
  }),
  avatarList: op({ method: "GET", path: "/avatar/list", status: 200, request: AvatarListRequest, response: AvatarListResponse, summary: "List looks, space first" }),
  avatarLook: op({ method: "GET", path: "/avatar/{avatar_id}/look/{look_id}", status: 200, request: AvatarLookRequest, response: LookDetail, summary: "One look" }),
  avatarGet: op({ method: "GET", path: "/avatar/{avatar_id}", status: 200, request: AvatarGetRequest, response: Avatar, summary: "One avatar with its looks" }),
} as const;
