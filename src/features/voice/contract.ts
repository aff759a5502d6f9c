import { z } from "zod";
import { op } from "../../contract/operation.js";
import { voiceRoutes } from "./routes.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { GenderFilter, ListFilter, NonEmptyString, QueryBoolInput } from "../../contract/request-fields.js";

/** A voice is known by its id; the rest may be absent or null (an entry without an id is left out of a listing). */
export const Voice = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  language: z.string().nullish(),
  gender: z.enum(["male", "female"]).nullish(),
  tags: z.array(z.string()).nullish(),
  source: z.enum(["space", "config"]).nullish(),
});
export type Voice = z.infer<typeof Voice>;

/** GET /resources/voices item: `accent` and `preview` instead of `source`. */
export const ResourceVoice = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  language: z.string().nullish(),
  accent: z.string().nullish(),
  gender: z.enum(["male", "female"]).nullish(),
  tags: z.array(z.string()).nullish(),
  preview: z.string().nullish(),
});
export type ResourceVoice = z.infer<typeof ResourceVoice>;

/** One language code (`fr`, `pt-BR`): the spec's `language` is a code, not a list. */
const LanguageCode = z.string().refine((v) => /^\s*([A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*)?\s*$/.test(v), {
  error: "must be one language code (e.g. en or fr-FR)",
});

export const VoiceListRequest = z.strictObject({
  language: LanguageCode.optional(),
  gender: GenderFilter.optional(),
  tags: ListFilter.optional(),
  onlyPublic: QueryBoolInput.optional(),
});
export type VoiceListRequest = z.input<typeof VoiceListRequest>;
export const VoiceListResponse = z.array(Voice);

export const ResourceVoicesRequest = z.strictObject({
  language: LanguageCode.optional(),
  gender: GenderFilter.optional(),
  tags: ListFilter.optional(),
});
export type ResourceVoicesRequest = z.input<typeof ResourceVoicesRequest>;
export const ResourceVoicesResponse = z.array(ResourceVoice);

export const VoiceGetRequest = z.strictObject({ id: NonEmptyString });
export type VoiceGetRequest = z.input<typeof VoiceGetRequest>;

const VOICE_CODES: RequestCodes = { missing: "invalid_value", invalid: "invalid_value" };
export const requestCodes = {
  voiceList: VOICE_CODES,
  voiceGet: { missing: "NOT_FOUND", invalid: "NOT_FOUND", shape: "code" },
  resourceVoices: VOICE_CODES,
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  voiceList: op(voiceRoutes.voiceList, { request: VoiceListRequest, response: VoiceListResponse }),
  voiceGet: op(voiceRoutes.voiceGet, { request: VoiceGetRequest, response: Voice }),
  resourceVoices: op(voiceRoutes.resourceVoices, { request: ResourceVoicesRequest, response: ResourceVoicesResponse }),
} as const;
