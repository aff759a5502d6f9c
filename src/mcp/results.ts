/**
 * Tool results and tool errors. A result is the service's JSON as it answered (text content, and
 * the same object as structured content); an error is a tool error (`isError: true`) whose JSON is
 * `{ "error": { code, message, field?, status?, details?, … } }` with the spec's code and field when
 * the service gave them. Everything goes through the key redaction first: the API key in use (and
 * anything key-shaped) never reaches the client.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { redact } from "../engine/redact.js";

export interface ErrorInfo {
  code: string;
  message: string;
  field?: string;
  status?: number;
  /** More about the failure: the service's details, the budget, the job's last status. */
  extra?: Record<string, unknown>;
}

function json(value: unknown): { text: string; structured: Record<string, unknown> | undefined } {
  const text = redact(JSON.stringify(value ?? null, null, 2));
  const parsed: unknown = JSON.parse(text);
  return { text, structured: parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined };
}

export function toolResult(value: unknown): CallToolResult {
  const { text, structured } = json(value);
  return { content: [{ type: "text", text }], ...(structured ? { structuredContent: structured } : {}) };
}

type AnyErr = { name?: unknown; message?: unknown; code?: unknown; field?: unknown; status?: unknown; body?: unknown; hint?: unknown; details?: unknown };

/** What a thrown error says, in the tool error's terms. */
export function errorInfo(e: unknown): ErrorInfo {
  if (!(e instanceof Error) && e && typeof e === "object" && typeof (e as AnyErr).code === "string" && typeof (e as AnyErr).message === "string") {
    return e as ErrorInfo;
  }
  const err = (e && typeof e === "object" ? e : { message: String(e) }) as AnyErr;
  const message = typeof err.message === "string" && err.message ? err.message : String(e);
  const code = typeof err.code === "string" && err.code ? err.code : "internal_error";
  // CLI errors name a flag (`--download`): a tool's caller has none, so only request fields are kept.
  const field = typeof err.field === "string" && err.field && !err.field.startsWith("--") ? err.field : undefined;
  const extra: Record<string, unknown> = {};
  if (err.name === "ApiError" && err.body && typeof err.body === "object") {
    const { error: _said, ...rest } = err.body as Record<string, unknown>;
    Object.assign(extra, rest);
  }
  if (err.name === "BudgetError" && err.details && typeof err.details === "object") Object.assign(extra, err.details);
  if (typeof err.hint === "string") extra.hint = err.hint;
  return {
    code,
    message: message.replace(/pass --force to overwrite/, "give force: true to overwrite"),
    ...(field ? { field } : {}),
    ...(err.name === "ApiError" && typeof err.status === "number" ? { status: err.status } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

export function toolError(e: unknown): CallToolResult {
  const info = errorInfo(e);
  const { extra, ...rest } = info;
  const { text, structured } = json({ error: { ...(extra ?? {}), ...rest } });
  return { isError: true, content: [{ type: "text", text }], ...(structured ? { structuredContent: structured } : {}) };
}
