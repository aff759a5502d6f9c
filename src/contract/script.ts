import { z } from "zod";

export const SCRIPT_PROMPT_MAX = 10_000;
export const WEB_URLS_MAX = 10;

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
