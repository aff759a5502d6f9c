import { z } from "zod";
import { op } from "../../contract/operation.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { WebUrl } from "../../contract/request-fields.js";

export const SCRIPT_PROMPT_MAX = 10_000;
export const WEB_URLS_MAX = 10;
/** Script duration in seconds: 10 to 600, default 60 (spec, Limits). */
export const SCRIPT_DURATION_MIN = 10;
export const SCRIPT_DURATION_MAX = 600;
export const SCRIPT_DURATION_DEFAULT = 60;

/** Characters as people count them (code points): an emoji is one. */
function characters(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** POST /script/generate: prompt (at most 10,000 characters), duration 10..600, at most 10 URLs. */
export const ScriptGenerateRequest = z.strictObject({
  prompt: z
    .string()
    .refine((v) => v.trim() !== "", { error: "is required (it is empty)", params: { code: "MISSING_FIELD" } })
    .refine((v) => characters(v) <= SCRIPT_PROMPT_MAX, {
      error: (iss) => `is ${characters(String(iss.input))} characters; the limit is ${SCRIPT_PROMPT_MAX.toLocaleString("en-US")}`,
    }),
  duration: z
    .number({ error: "must be a number of seconds" })
    .min(SCRIPT_DURATION_MIN, { error: `must be from ${SCRIPT_DURATION_MIN} to ${SCRIPT_DURATION_MAX} seconds` })
    .max(SCRIPT_DURATION_MAX, { error: `must be from ${SCRIPT_DURATION_MIN} to ${SCRIPT_DURATION_MAX} seconds` })
    .optional(),
  urls: z
    .array(WebUrl)
    .max(WEB_URLS_MAX, { error: (iss) => `has ${Array.isArray(iss.input) ? iss.input.length : "too many"} URLs; the limit is ${WEB_URLS_MAX}` })
    .optional(),
  webSearch: z.boolean({ error: "must be true or false" }).optional(),
});
export type ScriptGenerateRequest = {
  prompt?: string;
  duration?: number;
  urls?: string[];
  webSearch?: boolean;
  [k: string]: unknown;
};

/** The script text is what was paid for; the cost and the images may be absent or null. */
export const ScriptGenerateResponse = z.looseObject({
  script: z.string(),
  cost: z.number().nullish(),
  extractedImages: z.array(z.string()).nullish(),
});
export type ScriptGenerateResponse = z.infer<typeof ScriptGenerateResponse>;

export const requestCodes = {
  scriptGenerate: { missing: "MISSING_FIELD", invalid: "INVALID_VALUE", type: "INVALID_TYPE" },
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  scriptGenerate: op({
    method: "POST",
    path: "/script/generate",
    status: 200,
    request: ScriptGenerateRequest,
    response: ScriptGenerateResponse,
    summary: "Generate a video script",
  }),
} as const;
