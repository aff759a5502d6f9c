/**
 * The JSON Schema of a sequence plan (`mediagen plan schema`, the MCP plan resource), draft 2020-12,
 * generated from the plan's zod schema (plan-contract.ts), so an editor completes and flags a plan
 * the way `plan validate` judges it. What it cannot say, and only `plan validate` checks: the plan's
 * total length (speech estimated from the text, at most 600 s), whether ids (voices, looks, avatars,
 * assets) exist in the space, and that local files are refused by a service reached over HTTP (the
 * schema accepts them: the local target takes them).
 */
import { z } from "zod";
import { PlanSchema } from "./plan-contract.js";

/** The plan's JSON Schema (draft 2020-12). */
export function planJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(PlanSchema, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>;
}
