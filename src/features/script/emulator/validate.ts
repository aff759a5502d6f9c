/**
 * A script request the check at the door let through (contract.ts: prompt, duration, urls,
 * webSearch in the spec's order), with the defaults filled in and the URLs normalised. Nothing is
 * judged here: a request that reaches the handler follows the contract.
 */
import { SCRIPT_DURATION_DEFAULT, characters, type ScriptGenerateRequest } from "../contract.js";

/** A request that passed every rule, with the defaults filled in. */
export interface ScriptPlan {
  prompt: string;
  duration: number;
  urls: string[];
  webSearch: boolean;
}

/** Characters as people count them (code points), so an emoji is one character, not two. */
export const characterCount = characters;

export function scriptPlanOf(input: ScriptGenerateRequest): ScriptPlan {
  return {
    prompt: input.prompt ?? "",
    duration: input.duration ?? SCRIPT_DURATION_DEFAULT,
    urls: (input.urls ?? []).map((u) => new URL(u.trim()).href),
    webSearch: input.webSearch ?? false,
  };
}
