import { z } from "zod";
import { op } from "../../contract/operation.js";
import { scriptRoutes } from "./routes.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { isHttpUrl } from "../../contract/request-fields.js";

export const SCRIPT_PROMPT_MAX = 10_000;
export const WEB_URLS_MAX = 10;
/** Script duration in seconds: 10 to 600, default 60 (spec, Limits). */
export const SCRIPT_DURATION_MIN = 10;
export const SCRIPT_DURATION_MAX = 600;
export const SCRIPT_DURATION_DEFAULT = 60;

/** Characters as people count them (code points): an emoji is one. */
export function characters(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * POST /script/generate, checked in the spec's order: prompt, duration, urls, webSearch; within a
 * field missing, then type, then value. `null` for the prompt is a missing prompt.
 */
export const ScriptGenerateRequest = z.strictObject({
  prompt: z
    .string({ error: "prompt must be a string" })
    .nullable()
    .superRefine((v, ctx) => {
      if (v === null || v.trim() === "") {
        ctx.addIssue({ code: "custom", message: v === null ? "prompt is required" : "prompt is required (it is empty)", params: { code: "MISSING_FIELD" } });
      } else if (characters(v) > SCRIPT_PROMPT_MAX) {
        ctx.addIssue({ code: "custom", message: `prompt is ${characters(v)} characters; the limit is ${SCRIPT_PROMPT_MAX.toLocaleString("en-US")}` });
      }
    }),
  duration: z
    .number({ error: "duration must be a number of seconds" })
    .refine((v) => v >= SCRIPT_DURATION_MIN && v <= SCRIPT_DURATION_MAX, {
      error: (iss) => `duration must be from ${SCRIPT_DURATION_MIN} to ${SCRIPT_DURATION_MAX} seconds, got ${String(iss.input)}`,
    })
    .optional()
    .meta({ minimum: SCRIPT_DURATION_MIN, maximum: SCRIPT_DURATION_MAX }),
  urls: z
    .array(z.string({ error: "must be a string (a URL)" }).refine(isHttpUrl, { error: "must be an http(s) URL" }), { error: "urls must be an array of URLs" })
    .max(WEB_URLS_MAX, { error: (iss) => `urls has ${Array.isArray(iss.input) ? iss.input.length : "too many"} URLs; the limit is ${WEB_URLS_MAX}` })
    .optional(),
  webSearch: z.boolean({ error: "webSearch must be true or false" }).optional(),
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
  scriptGenerate: { missing: "MISSING_FIELD", invalid: "INVALID_VALUE", type: "INVALID_TYPE", error: "Validation failed" },
} satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  scriptGenerate: op(scriptRoutes.scriptGenerate, { request: ScriptGenerateRequest, response: ScriptGenerateResponse }),
} as const;
