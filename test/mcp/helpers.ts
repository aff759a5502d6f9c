/**
 * `mediagen mcp` as an MCP client sees it: the BUILT binary (bin/mediagen.js → dist/) started as a
 * child process with a temp MEDIAGEN_HOME, driven by the SDK's own client over stdio. Build first
 * (`npx tsc -p .`).
 */
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BIN, ROOT } from "../cli/helpers.js";
import { runEnv } from "../helpers/cli.js";

export { BIN, ROOT };

if (!fs.existsSync(path.join(ROOT, "dist", "mcp", "server.js"))) {
  throw new Error("dist/mcp/server.js is missing: build first with `npx tsc -p .`");
}

export interface Session {
  client: Client;
  /** Everything the server said on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts `mediagen <globalArgs> mcp <args>` on `home` and connects the SDK's client to it. */
export async function startSession(home: string, args: string[], opts: { env?: Record<string, string | undefined>; globalArgs?: string[] } = {}): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...(opts.globalArgs ?? []), "mcp", ...args],
    env: runEnv(home, opts.env),
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const client = new Client({ name: "mediagen-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** The JSON a tool answered (its text content). */
export function body(r: CallToolResult | Awaited<ReturnType<Client["callTool"]>>): Record<string, unknown> {
  const first = (r.content as Array<{ type: string; text?: string }>)[0];
  if (first?.type !== "text" || first.text === undefined) throw new Error(`no text content: ${JSON.stringify(r)}`);
  return JSON.parse(first.text) as Record<string, unknown>;
}

/** The `error` object of a tool error. */
export function toolError(r: Awaited<ReturnType<Client["callTool"]>>): { code: string; message: string; field?: string; [k: string]: unknown } {
  if (r.isError !== true) throw new Error(`expected a tool error, got: ${JSON.stringify(r.content)}`);
  return body(r).error as { code: string; message: string; field?: string };
}

/** The 8 bytes every PNG file starts with. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
