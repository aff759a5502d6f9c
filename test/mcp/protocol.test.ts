/**
 * stdout of `mediagen mcp` carries JSON-RPC 2.0 messages and nothing else, whatever happens: the
 * built binary on raw pipes (no SDK on this side), sent valid requests, a line that is not JSON, a
 * JSON value that is not JSON-RPC, an unknown method, an unknown tool, a failing tool call and a
 * wait with progress, with --debug so the server talks a lot on stderr. Every line of stdout must
 * parse as a JSON-RPC 2.0 message; every request gets exactly one answer; closing stdin ends the
 * process with exit 0.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { newHome } from "../cli/helpers.js";
import { runEnv } from "../helpers/cli.js";
import { BIN } from "./helpers.js";
import { guardStdout } from "../../src/mcp/stdout-guard.js";

type Msg = {
  jsonrpc: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

class Raw {
  readonly lines: string[] = [];
  readonly messages: Msg[] = [];
  stderr = "";
  private buf = "";
  private waiters: Array<() => void> = [];
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on("data", (d: Buffer) => {
      this.buf += d.toString("utf8");
      for (let i = this.buf.indexOf("\n"); i >= 0; i = this.buf.indexOf("\n")) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        this.lines.push(line);
        try {
          this.messages.push(JSON.parse(line) as Msg);
        } catch {
          // kept in `lines`: the test fails on it
        }
        for (const w of this.waiters.splice(0)) w();
      }
    });
    child.stderr.on("data", (d: Buffer) => (this.stderr += d.toString("utf8")));
    this.exited = new Promise((resolve) => child.once("close", (code, sig) => resolve([code, sig])));
  }

  /** Unterminated output left at the end (must be none). */
  get rest(): string {
    return this.buf;
  }

  send(msg: unknown): void {
    this.child.stdin.write((typeof msg === "string" ? msg : JSON.stringify(msg)) + "\n");
  }

  /** The first message matching `pred`, waiting for it. */
  async next(pred: (m: Msg) => boolean): Promise<Msg> {
    for (;;) {
      const found = this.messages.find(pred);
      if (found) return found;
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no matching message; stdout so far:\n${this.lines.join("\n")}\nstderr:\n${this.stderr}`)), 30_000);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async request(id: number, method: string, params: Record<string, unknown> = {}): Promise<Msg> {
    this.send({ jsonrpc: "2.0", id, method, params });
    return this.next((m) => m.id === id && (m.result !== undefined || m.error !== undefined));
  }
}

const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

function start(args: string[]): Raw {
  const home = newHome();
  const child = spawn(process.execPath, [BIN, "--debug", "mcp", ...args], { env: runEnv(home), stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  return new Raw(child);
}

function isJsonRpc(m: unknown): boolean {
  if (!m || typeof m !== "object" || Array.isArray(m)) return false;
  const o = m as Msg;
  if (o.jsonrpc !== "2.0") return false;
  const isResponse = "id" in o && "result" in o !== "error" in o;
  const isNotification = typeof o.method === "string" && !("id" in o);
  const isRequest = typeof o.method === "string" && (typeof o.id === "string" || typeof o.id === "number");
  if ("error" in o && (typeof o.error?.code !== "number" || typeof o.error?.message !== "string")) return false;
  return isResponse || isNotification || isRequest;
}

describe("mediagen mcp: stdout is protocol only", () => {
  it("valid and invalid requests, failing tools, progress: every stdout line is a JSON-RPC 2.0 message", async () => {
    const raw = start(["--allow-dir", newHome(), "--max-credits", "3"]);
    const init = await raw.request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
    expect(init.result).toMatchObject({ serverInfo: { name: "mediagen" }, capabilities: { tools: {}, resources: {} } });
    raw.send({ jsonrpc: "2.0", method: "notifications/initialized" });

    const list = await raw.request(2, "tools/list");
    expect((list.result!.tools as unknown[]).length).toBeGreaterThan(10);

    // Not JSON, and JSON that is not JSON-RPC: answered with id null.
    raw.send("this is not json {");
    expect((await raw.next((m) => m.id === null && m.error?.code === -32700)).error!.message).toBe("Parse error");
    raw.send({ hello: "world" });
    await raw.next((m) => m.id === null && m.error?.code === -32600);

    expect((await raw.request(3, "no/such/method")).error).toMatchObject({ code: -32601 });
    expect((await raw.request(4, "tools/call", { name: "no_such_tool", arguments: {} })).error).toMatchObject({ code: -32602 });
    expect((await raw.request(5, "tools/call", { arguments: {} })).error).toMatchObject({ code: -32602 });
    expect((await raw.request(6, "resources/read", { uri: "mediagen://nothing" })).error).toMatchObject({ code: -32602 });

    // A failing tool: a result with isError, not a protocol error.
    const failed = await raw.request(7, "tools/call", { name: "asset_status", arguments: { assetId: "0123456789abcdef01234567" } });
    expect(failed.result).toMatchObject({ isError: true });
    expect(JSON.parse((failed.result!.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: { code: "asset_not_found" } });
    // Refused by the budget.
    const refused = await raw.request(8, "tools/call", { name: "asset_start", arguments: { type: "video", model: "vidA-3", prompt: "x", duration: 8 } });
    expect(JSON.parse((refused.result!.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: { code: "over_max_credits", remaining: 3 } });

    // A start and a wait with a progress token: progress notifications come before the answer.
    const started = await raw.request(9, "tools/call", { name: "asset_start", arguments: { type: "image", model: "imgA-4", prompt: "a lighthouse" } });
    const id = (started.result!.structuredContent as { asset_ids: string[] }).asset_ids[0]!;
    const waited = await raw.request(10, "tools/call", { name: "wait_for", arguments: { id }, _meta: { progressToken: "tok-1" } });
    expect(waited.result!.structuredContent).toMatchObject({ id, finished: true, state: "done" });
    const answerAt = raw.messages.indexOf(waited);
    const progress = raw.messages.filter((m) => m.method === "notifications/progress");
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) {
      expect(p.params).toMatchObject({ progressToken: "tok-1", message: expect.stringContaining(`asset ${id}`) });
      expect(raw.messages.indexOf(p)).toBeLessThan(answerAt);
    }
    expect(progress.map((p) => p.params!.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress.at(-1)!.params!.message as string).toMatch(/completed/);

    raw.child.stdin.end();
    const [code, signal] = await raw.exited;
    expect(signal).toBeNull();
    expect(code, raw.stderr).toBe(0);

    // The whole of stdout: JSON-RPC lines, nothing else, nothing unterminated.
    expect(raw.rest).toBe("");
    expect(raw.lines.length).toBe(raw.messages.length);
    for (const line of raw.lines) expect(isJsonRpc(JSON.parse(line)), line).toBe(true);
    // Exactly one answer per request id.
    for (const id of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) expect(raw.messages.filter((m) => m.id === id)).toHaveLength(1);
    // The talk (with --debug, plenty of it) went to stderr.
    expect(raw.stderr).toContain("mediagen mcp: serving");
    expect(raw.stderr).toContain("[mcp] call asset_start");
  });

  it("SIGTERM ends the session: exit 0, nothing on stdout", async () => {
    const raw = start([]);
    const init = await raw.request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } });
    expect(init.result).toBeDefined();
    raw.child.kill("SIGTERM");
    const [code, signal] = await raw.exited;
    expect([code, signal]).toEqual([0, null]);
    expect(raw.lines).toHaveLength(1);
    expect(raw.rest).toBe("");
  });

  it.each([
    ["--max-credits", ["--max-credits", "lots"]],
    ["--max-credits", ["--max-credits", "-3"]],
    ["--allow-dir", ["--allow-dir", "/dev/null/out"]],
  ])("a bad flag fails before the session starts: a usage error naming %s on stderr, stdout empty, exit 2", async (flag, args) => {
    const raw = start(args);
    raw.child.stdin.end();
    const [code] = await raw.exited;
    expect(code, raw.stderr).toBe(2);
    expect(raw.lines).toEqual([]);
    expect(raw.rest).toBe("");
    expect(raw.stderr).toContain(flag);
    expect(raw.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("the stdout guard", () => {
  it("sends other writes to stderr while the session runs, and gives stdout back after", () => {
    const out = new PassThrough();
    const err = new PassThrough();
    const seen = { out: "", err: "" };
    out.on("data", (d: Buffer) => (seen.out += d.toString()));
    err.on("data", (d: Buffer) => (seen.err += d.toString()));
    const guard = guardStdout(out, err);
    out.write("a stray notice\n");
    guard.protocol.write('{"jsonrpc":"2.0","method":"x"}\n');
    expect(seen.out).toBe('{"jsonrpc":"2.0","method":"x"}\n');
    expect(seen.err).toBe("a stray notice\n");
    guard.restore();
    out.write("after\n");
    expect(seen.out).toContain("after\n");
  });
});
