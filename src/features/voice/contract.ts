import { z } from "zod";
import { op } from "../../contract/operation.js";

export const Voice = z.looseObject({
  id: z.string(),
  name: z.string(),
  language: z.string(),
  gender: z.enum(["male", "female"]),
  tags: z.array(z.string()),
  source: z.enum(["space", "config"]),
});
export type Voice = z.infer<typeof Voice>;

/** GET /resources/voices item: `accent` and `preview` instead of `source`. */
export const ResourceVoice = z.looseObject({
  id: z.string(),
  name: z.string(),
  language: z.string(),
  accent: z.string(),
  gender: z.enum(["male", "female"]),
  tags: z.array(z.string()),
  preview: z.string(),
});
export type ResourceVoice = z.infer<typeof ResourceVoice>;

export const VoiceListRequest = z.looseObject({
  language: z.string().optional(),
  gender: z.string().optional(),
  tags: z.string().optional(),
  onlyPublic: z.union([z.boolean(), z.string()]).optional(),
});
export type VoiceListRequest = z.infer<typeof VoiceListRequest>;
export const VoiceListResponse = z.array(Voice);

export const ResourceVoicesRequest = z.looseObject({
  language: z.string().optional(),
  gender: z.string().optional(),
  tags: z.string().optional(),
});
export type ResourceVoicesRequest = z.infer<typeof ResourceVoicesRequest>;
export const ResourceVoicesResponse = z.array(ResourceVoice);

export const VoiceGetRequest = z.looseObject({ id: z.string() });

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  voiceList: op({ method: "GET", path: "/voice/list", status: 200, request: VoiceListRequest, response: VoiceListResponse, summary: "List voices, space first" }),
  voiceGet: op({ method: "GET", path: "/voice/{id}", status: 200, request: VoiceGetRequest, response: Voice, summary: "One voice" }),
  resourceVoices: op({ method: "GET", path: "/resources/voices", status: 200, request: ResourceVoicesRequest, response: ResourceVoicesResponse, summary: "Voices with accent and preview" }),
} as const;
