/**
 * The JSON Schema of a sequence plan (`mediagen plan schema`, the MCP plan resource), from the zod
 * definitions the plan validator uses.
 */
import { z } from "zod";
import { SequencePlan } from "./contract.js";

/** The plan's JSON Schema (draft 2020-12). */
export function planJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(SequencePlan, { target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
}
