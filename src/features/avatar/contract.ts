import { z } from "zod";
import { op } from "../../contract/operation.js";
import { avatarRoutes } from "./routes.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { GenderFilter, ListFilter, NonEmptyString, QueryBoolInput, WebhookUrl, isHttpUrl } from "../../contract/request-fields.js";
import { NAME_MAX, PROMPT_MAX } from "../../contract/limits.js";
import { AVATAR_CREATE_STYLES, AVATAR_EDIT_STYLES, AVATAR_RESOLUTIONS, LOOK_FORMATS } from "../../contract/avatar-vocabulary.js";

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
export const LookFormat = z.enum(LOOK_FORMATS);
export type LookFormat = z.infer<typeof LookFormat>;
export { AVATAR_CREATE_STYLES, AVATAR_EDIT_STYLES, AVATAR_RESOLUTIONS, LOOK_FORMATS } from "../../contract/avatar-vocabulary.js";

/** What a look shows of its person (every look record and listing carries these; each may be absent or null). */
const lookTraits = {
  place: z.string().nullish(),
  accessories: z.array(z.string()).nullish(),
  action: z.string().nullish(),
  emotion: z.string().nullish(),
  selfie: z.boolean().nullish(),
};

/** A look is known by its id; the rest may be absent or null (a look without an id is left out of a list). */
export const Look = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  ...lookTraits,
  format: LookFormat.nullish(),
  /** A URL; a pending look may have none yet (absent, never ""). */
  thumbnail: z.string().min(1).nullish(),
  preview: z.string().nullish(),
  status: LookStatus.nullish(),
  model_available: z.array(z.string()).nullish(),
});
export type Look = z.infer<typeof Look>;

/** Whose a look is: its avatar's fields, as the single-look record and the list item both carry them. */
const lookOwner = {
  avatar_id: z.string().nullish(),
  avatar_name: z.string().nullish(),
  look_name: z.string().nullish(),
  gender: z.string().nullish(),
  age_range: z.string().nullish(),
  ethnicity: z.string().nullish(),
  hair_color: z.string().nullish(),
};

/** GET /avatar/{id}/look/{look_id}: the look plus its avatar's fields. */
export const LookDetail = Look.extend({ ...lookOwner, error_message: z.string().nullish() });
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

/**
 * An image the service fetches (create's `images`, `elementImages`, `imageUrls`; edit's `imageUrls`):
 * a URL, with no file-extension rule (hosted-facts.md: that rule is asset start's). On the local
 * instance a file:// URL or a path too, when local files are allowed (the handler's rule: it depends
 * on the door). What is fetched must be an image: a failed look or a clear error otherwise.
 */
const ImageRef = z
  .string({ error: "must be a string (an image URL)" })
  .trim()
  .min(1, { error: "must not be empty" })
  .refine(isImageRefShape, { error: "must be an http(s) URL of an image" });
const ImageRefs = z.array(ImageRef, { error: "must be an array of URLs" });
const hasText = (v: unknown) => typeof v === "string" && v.trim() !== "";
const text = (max: number) => z.string({ error: "must be a string" }).max(max, { error: `is longer than ${max} characters` });
const style = <T extends readonly [string, ...string[]]>(styles: T) => z.enum(styles, { error: `must be one of: ${styles.join(", ")}` });
const resolution = z.enum(AVATAR_RESOLUTIONS, { error: "must be 2K or 4K" });
const format = z.enum(LOOK_FORMATS, { error: `must be one of: ${LOOK_FORMATS.join(", ")}` });

/** An http(s) URL, a file:// URL, or (no scheme) a path. */
function isImageRefShape(v: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(v)?.[1]?.toLowerCase();
  if (!scheme || scheme.length === 1) return true;
  if (scheme === "file") return true;
  return (scheme === "http" || scheme === "https") && isHttpUrl(v);
}

/**
 * POST /avatar/create: prompt-based (prompt, with format and element images) or image-based (images,
 * used as-is; `imageUrls` is the docs' alias); `format` and element images belong to prompt-based
 * creation only. Checked in the order the service answers: webhook, the prompt, style, name, place,
 * format, resolution, then the images.
 */
export const AvatarCreateRequest = z
  .strictObject({
    webhook_url: WebhookUrl.optional(),
    prompt: text(PROMPT_MAX).optional(),
    style: style(AVATAR_CREATE_STYLES).optional(),
    name: text(NAME_MAX).optional(),
    place: text(NAME_MAX).optional(),
    format: format.optional(),
    resolution: resolution.optional(),
    elementImages: ImageRefs.optional(),
    elements: ImageRefs.optional(),
    images: ImageRefs.optional(),
    imageUrls: ImageRefs.optional(),
  })
  .superRefine((req, ctx) => {
    if (hasText(req.prompt)) return;
    for (const key of ["format", "elementImages", "elements"] as const) {
      if (req[key] !== undefined) {
        ctx.addIssue({ code: "custom", path: [key], message: `${key} is only accepted with a prompt (prompt-based creation)`, params: { shape: "envelope" } });
      }
    }
    if (!req.images?.length && !req.imageUrls?.length) {
      ctx.addIssue({
        code: "custom",
        path: ["prompt"],
        message: "prompt is required when no images are given",
        params: { shape: "validation", error: "Validation failed" },
      });
    }
  });
export type AvatarCreateRequest = z.input<typeof AvatarCreateRequest>;

export const AvatarLookRef = z.looseObject({ avatar_id: z.string(), look_id: z.string() });
export type AvatarLookRef = z.infer<typeof AvatarLookRef>;

/** A required id or prompt of edit: absent or blank is the spec's MISSING_* code. */
const required = (code: string) => z.string({ error: "is required" }).refine((v) => v.trim() !== "", { error: "is required", params: { code } });

/**
 * POST /avatar/edit, in the order of the spec's error list. Besides the spec's fields, the service's
 * docs name `upscale` (+1.5 credits), `look_name`, `place` and `tags` (hosted-facts.md).
 */
export const AvatarEditRequest = z.strictObject({
  avatar_id: required("MISSING_AVATAR_ID"),
  look_id: required("MISSING_LOOK_ID"),
  prompt: required("MISSING_PROMPT").refine((v) => v.length <= PROMPT_MAX, {
    error: `is longer than ${PROMPT_MAX} characters`,
    params: { code: "INVALID_VALUE" },
  }),
  webhook_url: WebhookUrl.optional(),
  format: format.optional(),
  style: style(AVATAR_EDIT_STYLES).optional(),
  resolution: resolution.optional(),
  imageUrls: ImageRefs.optional(),
  upscale: z.boolean({ error: "must be true or false" }).optional(),
  look_name: text(NAME_MAX).optional(),
  place: text(NAME_MAX).optional(),
  tags: z.array(text(NAME_MAX), { error: "must be an array of strings" }).optional(),
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
      ...lookTraits,
      format: z.string().nullish(),
      thumbnail: z.string().nullish(),
      model_available: z.array(z.string()).nullish(),
    })
    .nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});
export type AvatarStatusResponse = z.infer<typeof AvatarStatusResponse>;

export const AvatarGetRequest = z.strictObject({ avatar_id: NonEmptyString });
export type AvatarGetRequest = z.input<typeof AvatarGetRequest>;
export const AvatarLookRequest = z.strictObject({ avatar_id: NonEmptyString, look_id: NonEmptyString });
export type AvatarLookRequest = z.input<typeof AvatarLookRequest>;

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
  /** The docs' tag filter (hosted-facts.md): a comma list, a look matches when any tag does. */
  tags: ListFilter.optional(),
});
export type AvatarListRequest = z.input<typeof AvatarListRequest>;

/**
 * One item of GET /avatar/list: a look with its avatar's fields. A look is known by its id (and its
 * avatar's, to read it); an entry without an id is left out of the listing.
 */
export const AvatarListItem = z.looseObject({
  id: z.string(),
  ...lookOwner,
  ...lookTraits,
  format: z.string().nullish(),
  thumbnail: z.string().min(1).nullish(),
  preview: z.string().nullish(),
  model_available: z.array(z.string()).nullish(),
  tags: z.array(z.string()).nullish(),
});
export type AvatarListItem = z.infer<typeof AvatarListItem>;
export const AvatarListResponse = z.array(AvatarListItem);

/** GET /resources/avatars, the legacy listing the docs still give: `gender` and `tags`, no `onlyPublic`. */
export const ResourceAvatarsRequest = z.strictObject({
  gender: GenderFilter.optional(),
  tags: ListFilter.optional(),
});
export type ResourceAvatarsRequest = z.input<typeof ResourceAvatarsRequest>;

/** One item of GET /resources/avatars (older pages of the docs show `name` instead of the two names). */
export const ResourceAvatar = z.looseObject({
  id: z.string(),
  avatar_name: z.string(),
  look_name: z.string(),
  gender: z.string(),
  place: z.string(),
  format: z.string(),
  tags: z.array(z.string()),
  thumbnail: z.string().min(1).optional(),
  preview: z.string().nullable(),
  model_available: z.array(z.string()),
});
export type ResourceAvatar = z.infer<typeof ResourceAvatar>;
export const ResourceAvatarsResponse = z.array(ResourceAvatar);

/**
 * The spec's codes for a bad request: INVALID_VALUE on create and status; MISSING_* on edit; all in
 * the `{error, code}` body these endpoints answer in (create's missing prompt: the validation body).
 */
const AVATAR_CODES: RequestCodes = { missing: "INVALID_VALUE", invalid: "INVALID_VALUE", shape: "code" };
const LIST_CODES: RequestCodes = { missing: "invalid_value", invalid: "invalid_value" };
const ID_CODES: RequestCodes = { missing: "NOT_FOUND", invalid: "NOT_FOUND", shape: "code" };
export const requestCodes = {
  avatarCreate: AVATAR_CODES,
  avatarEdit: {
    ...AVATAR_CODES,
    missingOf: { avatar_id: "MISSING_AVATAR_ID", look_id: "MISSING_LOOK_ID", prompt: "MISSING_PROMPT" },
    invalidOf: { avatar_id: "MISSING_AVATAR_ID", look_id: "MISSING_LOOK_ID", webhook_url: "INVALID_WEBHOOK_URL" },
  },
  avatarStatus: AVATAR_CODES,
  avatarList: LIST_CODES,
  avatarLook: ID_CODES,
  avatarGet: ID_CODES,
  resourceAvatars: LIST_CODES,
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  avatarCreate: op(avatarRoutes.avatarCreate, { request: AvatarCreateRequest, response: AvatarLookRef }),
  avatarEdit: op(avatarRoutes.avatarEdit, { request: AvatarEditRequest, response: AvatarLookRef }),
  avatarStatus: op(avatarRoutes.avatarStatus, { request: AvatarStatusRequest, response: AvatarStatusResponse }),
  avatarList: op(avatarRoutes.avatarList, { request: AvatarListRequest, response: AvatarListResponse }),
  avatarLook: op(avatarRoutes.avatarLook, { request: AvatarLookRequest, response: LookDetail }),
  avatarGet: op(avatarRoutes.avatarGet, { request: AvatarGetRequest, response: Avatar }),
  resourceAvatars: op(avatarRoutes.resourceAvatars, { request: ResourceAvatarsRequest, response: ResourceAvatarsResponse }),
} as const;
