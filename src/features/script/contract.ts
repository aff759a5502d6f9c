import { z } from "zod";
import { op } from "../../contract/operation.js";

export const SCRIPT_PROMPT_MAX = 10_000;
export const WEB_URLS_MAX = 10;
/** Script duration in seconds: 10 to 600, default 60 (spec, Limits). */
export const SCRIPT_DURATION_MIN = 10;
export const SCRIPT_DURATION_MAX = 600;
export const SCRIPT_DURATION_DEFAULT = 60;

export const ScriptGenerateRequest = z.looseObject({
  prompt: z.unknown().optional(),
  duration: z.unknown().optional(),
  urls: z.unknown().optional(),
  webSearch: z.unknown().optional(),
});
export type ScriptGenerateRequest = {
  prompt?: string;
  duration?: number;
  urls?: string[];
  webSearch?: boolean;
  [k: string]: unknown;
};

export const ScriptGenerateResponse = z.looseObject({
  script: z.string(),
  cost: z.number(),
  extractedImages: z.array(z.string()),
});
export type ScriptGenerateResponse = z.infer<typeof ScriptGenerateResponse>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  scriptGenerate: op({ method: "POST", path: "/script/generate", status: 200, request: ScriptGenerateRequest, response: ScriptGenerateResponse, summary: "Generate a video script" }),
} as const;
