/**
 * The service's operations as MCP tools, derived from the operation table (src/features/operations.ts):
 * one tool per operation, named after it in snake case (`assetStart` → `asset_start`), described by
 * its summary, with the request schema as the tool's input JSON Schema. A new operation in a
 * feature's contract becomes a tool with no code here.
 */
import { z } from "zod";
import { operations, type OpName, type OperationDef } from "../features/operations.js";
import { isRead, lifeOf } from "../features/lives.js";

export interface OpTool {
  name: string;
  op: OpName;
  def: OperationDef;
  /** A read (GET, or a POST without effects): listed under --read-only, never priced. */
  read: boolean;
}

/** `assetStart` → `asset_start`. */
export function toolName(op: string): string {
  return op.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A read (its life says so: a GET, or a POST without effects): listed under --read-only, never priced. */
export function isReadOp(op: OpName): boolean {
  return isRead(op);
}

/** Every operation of the table as a tool, in the table's order. */
export function opTools(): OpTool[] {
  return (Object.keys(operations) as OpName[]).map((op) => ({ name: toolName(op), op, def: operations[op], read: isReadOp(op) }));
}

const byName = new Map<string, OpTool>();
/** The operation tool called `name` (or the operation of that name), if any. */
export function opTool(name: string): OpTool | undefined {
  if (!byName.size) for (const t of opTools()) byName.set(t.name, t);
  return byName.get(name) ?? (name in operations ? byName.get(toolName(name)) : undefined);
}

/**
 * The request schema as the tool's input JSON Schema (what the caller sends: `io: "input"`). The
 * service checks the values and answers with its own codes, so the schema guides and the service
 * judges. A request that is not an object is wrapped as one (MCP input schemas are objects).
 */
export function inputSchema(def: OperationDef): Record<string, unknown> & { type: "object" } {
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(def.request, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  } catch {
    schema = {};
  }
  delete schema.$schema;
  if (schema.type !== "object") return { type: "object", additionalProperties: true };
  return schema as Record<string, unknown> & { type: "object" };
}

/** What an agent reads about a tool: the summary, the endpoint, and whether it costs credits. */
export function describeOp(t: OpTool): string {
  const lines = [`${t.def.summary} (${t.def.method} ${t.def.path}).`];
  if (!t.read) {
    lines.push("May debit credits from the space: `price` tells the cost first; under --max-credits the start is priced and refused past the session's budget.");
  }
  if (lifeOf(t.op).statusOf) lines.push("To wait until the job ends, use `wait_for`.");
  return lines.join(" ");
}
