/**
 * The check at the door of POST /generation/start: the contract's schema (contract.ts) with the rules
 * a contract file may not load (they live with the plan's, in plan.ts and text.ts): each media
 * reference is a URL or a path of the kinds its field takes, a script is at most 600 s of speech,
 * and a sequence plan follows the plan's rules (INVALID_PLAN on the path of each problem). Every door
 * judges a start with this schema (features/request-check.ts: the local dispatch, the hosted client
 * before it sends, dry runs, batch lines, MCP), once; the handler then judges only what needs state.
 */
import type { z } from "zod";
import { GENERATION_DURATION_MAX, GenerationStartRequest, operations as contractOperations, requestCodes } from "./contract.js";
import { checkPlan, refProblem, type MediaKind } from "./plan.js";
import { estimateSpeechMs } from "./text.js";

/** Well-formed media references: a URL or a path (whether paths are accepted is the instance's call). */
const SHAPE_ONLY = { allowLocalFiles: true } as const;

/** `sequence_plan[1].sequences[0].text` → `["sequence_plan", 1, "sequences", 0, "text"]`. */
const pathOf = (field: string): (string | number)[] => [...field.matchAll(/\[(\d+)\]|[^.[\]]+/g)].map((m) => (m[1] !== undefined ? Number(m[1]) : m[0]));

function refRule(ctx: z.RefinementCtx, value: unknown, path: (string | number)[], kinds: readonly MediaKind[]): void {
  if (typeof value !== "string") return;
  const why = refProblem(value, kinds, SHAPE_ONLY);
  if (why) ctx.addIssue({ code: "custom", path, message: why });
}

function doorRules(req: Record<string, unknown>, ctx: z.RefinementCtx): void {
  refRule(ctx, req.voice_url, ["voice_url"], ["audio"]);
  refRule(ctx, req.avatar_url, ["avatar_url"], ["image", "video"]);
  if (Array.isArray(req.media_urls)) {
    req.media_urls.forEach((u, i) => {
      refRule(ctx, u, ["media_urls", i], ["image", "video"]);
    });
  }
  const plan = req.sequence_plan !== undefined && req.sequence_plan !== null;
  if (!plan && typeof req.script === "string" && req.script.trim() !== "") {
    const ms = estimateSpeechMs(req.script.trim());
    if (ms > GENERATION_DURATION_MAX * 1000) {
      ctx.addIssue({
        code: "custom",
        path: ["script"],
        message: `script is about ${Math.round(ms / 1000)} s of speech; a video is at most ${GENERATION_DURATION_MAX} s`,
      });
    }
  }
  if (plan) {
    for (const p of checkPlan(req.sequence_plan, SHAPE_ONLY).problems) {
      ctx.addIssue({ code: "custom", path: pathOf(p.field), message: p.message, params: { code: "INVALID_PLAN" } });
    }
  }
}

/** The request schema every door applies to a start. */
export const GenerationStartAtTheDoor = GenerationStartRequest.superRefine((req, ctx) => doorRules(req as Record<string, unknown>, ctx), { when: () => true });

/** The contract's operations, generation start judged with the rules above. */
export const operations = {
  ...contractOperations,
  generationStart: { ...contractOperations.generationStart, request: GenerationStartAtTheDoor },
};
export { requestCodes };
