/**
 * `mediagen mcp`: the engine as an MCP server over stdio, for AI agents. One tool per operation of
 * the service (src/mcp/tools.ts, from the operation table), plus `wait_for` (the spec's poll
 * schedules, a deadline, progress notifications), `download` (into --allow-dir directories only) and
 * `price` (a start's cost before it is made). Resources: the model catalog, the voice and look
 * lists, and the sequence plan's JSON Schema. --max-credits caps what the session may spend,
 * --read-only lists only the reads. stdout carries protocol messages only: anything else written to
 * it during the session goes to stderr (src/mcp/stdout-guard.ts), and every result and error is
 * passed through the key redaction.
 *
 * The MCP SDK is loaded here only (the `mcp` command imports this module when it runs).
 */
import type { Writable } from "node:stream";
import { z } from "zod";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type ServerNotification,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { CommandContext } from "../cli/command-context.js";
import type { Engine, OpName } from "../engine/engine.js";
import { redact, registerSecret } from "../engine/redact.js";
import { runWaitAll, type WaitJob } from "../cli/wait.js";
import { describeOp, inputSchema, opTool, opTools, type OpTool } from "./tools.js";
import { debitedBy, priceOf } from "./price.js";
import { Budget } from "./budget.js";
import { jobRef, jobsStarted, KINDS, watchOf, type JobRef } from "./jobs.js";
import { resolveDownloadDir } from "./paths.js";
import { guardStdout } from "./stdout-guard.js";
import { toolError, toolResult } from "./results.js";

export interface McpOptions {
  readOnly: boolean;
  maxCredits?: number;
  /** Real paths of the directories `download` may write into. */
  allowDirs: string[];
}

/** Default and longest deadline of one `wait_for` call, in seconds (clients often give up on a call after 60 s). */
export const WAIT_DEFAULT_S = 45;
export const WAIT_MAX_S = 20 * 60;

const JOB_PROPS = {
  id: { type: "string", description: "the job's id: an asset id, a look id, a generation job_id (run_…) or an export job_id" },
  kind: { type: "string", enum: [...KINDS], description: "asset, look, generation or export; default: known from this session, the history, or the id's shape" },
  avatar_id: { type: "string", description: "a look's avatar (looks are read through their avatar)" },
} as const;

function helperTools(readOnly: boolean): Tool[] {
  return [
    {
      name: "wait_for",
      description:
        "Wait until a job ends (an asset, an avatar look, a video generation or an export), polling on the service's schedule, and return its final status. " +
        `Returns finished: false with the last status when timeout_seconds (default ${WAIT_DEFAULT_S}, at most ${WAIT_MAX_S}) pass first: call it again. ` +
        "A failed job is a tool error with code job_failed. Sends progress notifications when the request has a progressToken.",
      inputSchema: {
        type: "object",
        properties: {
          ...JOB_PROPS,
          timeout_seconds: { type: "number", minimum: 1, maximum: WAIT_MAX_S, description: `deadline of this call (default ${WAIT_DEFAULT_S})` },
        },
        required: ["id"],
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    {
      name: "download",
      description:
        "Save the result of a finished job (an asset's file, a look's picture, a generation's thumbnail, an export's video) into a directory the user allowed with --allow-dir. " +
        "dir is relative to the first allowed directory (default: that directory) or an absolute path inside one; anything else is refused. Returns the saved path.",
      inputSchema: {
        type: "object",
        properties: {
          ...JOB_PROPS,
          dir: { type: "string", description: "where to save, inside an allowed directory" },
          force: { type: "boolean", description: "replace a file of the same name (default false)" },
        },
        required: ["id"],
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    {
      name: "price",
      description:
        "The cost in credits of a start request before it is made (nothing is started or debited): give the tool's name and the arguments you would call it with. " +
        "credits is null when the price cannot be known before the job starts (basis says why). Also reports this session's budget (--max-credits)." +
        (readOnly ? " This session is read-only: nothing can be started." : ""),
      inputSchema: {
        type: "object",
        properties: {
          tool: { type: "string", description: "the start tool, e.g. asset_start, generation_start, export_start" },
          arguments: { type: "object", description: "the arguments you would call it with", additionalProperties: true },
        },
        required: ["tool"],
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
  ];
}

const RESOURCES = [
  {
    uri: "mediagen://catalog/models",
    name: "models",
    description: "The model catalog (asset_models): names, types, capabilities and base costs",
    mimeType: "application/json",
  },
  {
    uri: "mediagen://catalog/voices",
    name: "voices",
    description: "Voices for generation_start (voice_list): the space's first, then the catalog",
    mimeType: "application/json",
  },
  {
    uri: "mediagen://catalog/looks",
    name: "looks",
    description: "Avatar looks for generation_start avatar_id and plan look_id (avatar_list)",
    mimeType: "application/json",
  },
  {
    uri: "mediagen://schema/sequence-plan",
    name: "sequence-plan-schema",
    description: "JSON Schema of generation_start's sequence_plan: read it before building a plan",
    mimeType: "application/schema+json",
  },
] as const;

const CALL_TOOL = z.looseObject({ method: z.literal("tools/call"), params: z.looseObject({}).optional() });

type Args = Record<string, unknown>;
type Extra = { signal: AbortSignal; _meta?: { progressToken?: string | number }; sendNotification: (n: ServerNotification) => Promise<void> };

export class McpSession {
  readonly budget: Budget;
  /** Jobs this session started: their kind (and a look's avatar) for wait_for and download. */
  private readonly started = new Map<string, JobRef>();
  private readonly tools: OpTool[];
  /** Aborted when the session ends: waits and downloads in flight stop. */
  private readonly ended = new AbortController();

  constructor(
    private readonly ctx: CommandContext,
    private readonly engine: Engine,
    readonly options: McpOptions,
  ) {
    this.budget = new Budget(options.maxCredits);
    this.tools = opTools().filter((t) => t.read || !options.readOnly);
  }

  private trace(line: string): void {
    if (this.ctx.opts.debug) this.ctx.io.warn(redact(`[mcp] ${line}`));
  }

  listTools(): Tool[] {
    const ops: Tool[] = this.tools.map((t) => ({
      name: t.name,
      title: t.def.summary,
      description: describeOp(t),
      inputSchema: inputSchema(t.def),
      annotations: t.read ? { readOnlyHint: true, openWorldHint: true } : { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    }));
    return [...ops, ...helperTools(this.options.readOnly)];
  }

  async callTool(name: string, args: Args, extra: Extra): Promise<CallToolResult> {
    const signal = AbortSignal.any([extra.signal, this.ended.signal]);
    this.trace(`call ${name}`);
    try {
      if (name === "wait_for") return await this.waitFor(args, signal, extra);
      if (name === "download") return await this.download(args, signal);
      if (name === "price") return await this.price(args);
      const t = this.tools.find((x) => x.name === name);
      if (!t) {
        const hidden = opTool(name);
        if (hidden && this.options.readOnly) {
          return toolError({ code: "read_only", message: `${name} is not available: this session was started with --read-only (reads only)` });
        }
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      }
      return await this.callOp(t, args, signal);
    } catch (e) {
      if (e instanceof McpError) throw e;
      this.trace(`${name} failed: ${e instanceof Error ? e.message : String(e)}`);
      return toolError(e);
    }
  }

  private async callOp(t: OpTool, args: Args, signal: AbortSignal): Promise<CallToolResult> {
    const reservation = t.read
      ? undefined
      : this.budget.reserve(t.name, this.budget.maxCredits === undefined ? { credits: null, exact: false, basis: "" } : await this.priceOf(t.op, args));
    let res: unknown;
    try {
      res = await this.engine.call(t.op, args as never, { signal });
    } catch (e) {
      // A refusal (4xx) debits nothing; a 5xx or a lost connection may have been acted on: keep the reservation.
      const status = (e as { status?: unknown }).status;
      if ((e as { name?: string }).name === "ApiError" && typeof status === "number" && status < 500) reservation?.release();
      else reservation?.settle(undefined);
      throw e;
    }
    reservation?.settle(debitedBy(t.op, res));
    if (!t.read) this.remember(t.op, args, res);
    // Keys an open body (generation start) carries that the contract does not know: sent as given, and said.
    const notice = t.read ? undefined : await (await import("../cli/body.js")).unknownFieldsNotice(t.op, args);
    const out = toolResult(res);
    return notice ? { ...out, content: [...out.content, { type: "text", text: notice }] } : out;
  }

  /**
   * Jobs a start made, kept for wait_for/download. The history records them already: every start
   * through the CLI's engine is recorded as its life says (src/cli/guarded-engine.ts).
   */
  private remember(op: OpName, args: Args, res: unknown): void {
    for (const j of jobsStarted(op, args, res)) this.started.set(j.id, j);
  }

  /** A start's price by its life; a video this machine made is priced in its own format (the history's). */
  private async priceOf(op: OpName, args: Args) {
    const { videoFormatOf } = await import("../cli/journal.js");
    return priceOf(this.engine, op, args, (id) => {
      try {
        return videoFormatOf(this.ctx.home, id, this.engine.target);
      } catch {
        return undefined; // an unreadable history knows nothing
      }
    });
  }

  /** What this session or the history knows of a job id: its kind, and a look's avatar. */
  private async known(id: unknown): Promise<Partial<JobRef> | undefined> {
    if (typeof id !== "string") return undefined;
    const mine = this.started.get(id);
    if (mine) return mine;
    const { findJob } = await import("../cli/journal.js");
    try {
      const entry = findJob(this.ctx.home, id, this.engine.target);
      return entry ? { kind: entry.kind, ...(entry.avatar_id ? { avatar_id: entry.avatar_id } : {}), ...(entry.cost !== null ? { cost: entry.cost } : {}) } : undefined;
    } catch {
      // an unreadable history knows nothing
      return undefined;
    }
  }

  private async waitFor(args: Args, signal: AbortSignal, extra: Extra): Promise<CallToolResult> {
    const ref = jobRef(args, await this.known(args.id));
    const t = args.timeout_seconds;
    if (t !== undefined && !(typeof t === "number" && t > 0 && t <= WAIT_MAX_S)) {
      return toolError({ code: "invalid_value", field: "timeout_seconds", message: `timeout_seconds must be a number of seconds from 1 to ${WAIT_MAX_S}` });
    }
    const timeoutMs = ((t as number | undefined) ?? WAIT_DEFAULT_S) * 1000;
    const { job, kind } = await watchOf(this.engine, ref);
    const token = extra._meta?.progressToken;
    let polls = 0;
    const started = this.ctx.runtime.clock.now();
    const polled: WaitJob<unknown> = {
      ...job,
      poll: async (s) => {
        const v = await job.poll(s);
        if (token !== undefined) {
          polls++;
          const secs = Math.round((this.ctx.runtime.clock.now() - started) / 1000);
          // Awaited, so the last one reaches the client before the result (which ends its progress handler).
          await extra
            .sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: polls, message: `${job.label}: ${kind.describe(v)} (${secs} s)` },
            })
            .catch(() => undefined);
        }
        return v;
      },
    };
    const clock = this.ctx.runtime.clock;
    const outcome = await runWaitAll({ jobs: [polled], state: kind.state, describe: kind.describe, schedule: kind.schedule }, this.ctx.withPollInterval({ timeoutMs }), {
      now: () => clock.now(),
      sleep: (ms, s) => clock.sleep(ms, s),
      timer: (ms, s) => clock.sleep(ms, s),
      onInterrupt: (handler) => {
        if (signal.aborted) handler();
        signal.addEventListener("abort", handler, { once: true });
        return () => signal.removeEventListener("abort", handler);
      },
      reporter: {
        update: (label, _state, text) => this.trace(`${label}: ${text}`),
        missed: (label, reason) => this.trace(`${label}: missed poll (${reason})`),
        stop: () => {},
      },
      target: this.engine.target,
    });
    const r = outcome.jobs[0]!;
    const base = { kind: ref.kind, id: ref.id };
    if (outcome.ending === "interrupted") return toolError({ code: "cancelled", message: `stopped waiting for ${job.label}; the job continues` });
    if (r.state === "error") return toolError(r.error);
    if (r.state === "done" || r.state === "failed") {
      const status = (r.value as { status?: unknown } | undefined)?.status;
      await this.ctx.recordUpdates([
        { kind: ref.kind, id: ref.id, ...(typeof status === "string" ? { status } : {}), ...(kind.journalFields && r.value ? kind.journalFields(r.value) : {}) },
      ]);
    }
    if (r.state === "failed") {
      return toolError({
        code: "job_failed",
        message: `${job.label} failed: ${kind.failure ? kind.failure(r.value, this.engine.target) : r.text}`,
        extra: { ...base, status: r.value },
      });
    }
    if (r.state === "done") return toolResult({ ...base, finished: true, state: "done", status: r.value });
    return toolResult({
      ...base,
      finished: false,
      state: "pending",
      ...(r.value !== undefined ? { status: r.value } : {}),
      message: `${job.label} is still running after ${Math.round(timeoutMs / 1000)} s${r.text ? ` (${r.text})` : ""}; call wait_for again`,
    });
  }

  private async download(args: Args, signal: AbortSignal): Promise<CallToolResult> {
    if (args.dir !== undefined && typeof args.dir !== "string") return toolError({ code: "invalid_value", field: "dir", message: "dir must be a string" });
    const dir = resolveDownloadDir(this.options.allowDirs, args.dir as string | undefined);
    const ref = jobRef(args, await this.known(args.id));
    const { job, kind } = await watchOf(this.engine, ref);
    const value = await job.poll(signal);
    const state = kind.state(value);
    if (state === "pending") {
      return toolError({
        code: "not_finished",
        message: `${job.label} is not finished yet (${kind.describe(value)}); call wait_for first`,
        extra: { kind: ref.kind, id: ref.id, status: value },
      });
    }
    if (state === "failed") {
      return toolError({
        code: "job_failed",
        message: `${job.label} failed: ${kind.failure ? kind.failure(value, this.engine.target) : kind.describe(value)}`,
        extra: { kind: ref.kind, id: ref.id, status: value },
      });
    }
    const file = kind.file?.(value);
    if (!file) return toolError({ code: "no_url", message: `${job.label} completed without a file to download` });
    const saved = await this.ctx.save(file.url, dir, file.name, { force: args.force === true, signal });
    const fs = await import("node:fs");
    const bytes = fs.statSync(saved).size;
    await this.ctx.recordUpdates([{ kind: ref.kind, id: ref.id, saved }]);
    return toolResult({ kind: ref.kind, id: ref.id, saved, bytes });
  }

  private async price(args: Args): Promise<CallToolResult> {
    const name = args.tool;
    const t = typeof name === "string" ? opTool(name) : undefined;
    if (!t) {
      return toolError({
        code: typeof name === "string" ? "invalid_value" : "missing_field",
        field: "tool",
        message: `tool must name a start tool (${opTools()
          .filter((x) => !x.read)
          .map((x) => x.name)
          .join(", ")})`,
      });
    }
    const input = args.arguments ?? {};
    if (typeof input !== "object" || input === null || Array.isArray(input))
      return toolError({ code: "invalid_value", field: "arguments", message: "arguments must be an object" });
    const p = await this.priceOf(t.op, input as Args);
    const remaining = this.budget.remaining;
    return toolResult({
      tool: t.name,
      ...p,
      budget: {
        max_credits: this.budget.maxCredits ?? null,
        spent: this.budget.spent,
        remaining: remaining ?? null,
        ...(remaining !== undefined ? { within: p.credits !== null && p.credits <= remaining } : {}),
      },
      ...(this.options.readOnly && !t.read ? { note: "this session is read-only: the start cannot be made here" } : {}),
    });
  }

  async readResource(uri: string): Promise<{ uri: string; mimeType: string; text: string }> {
    const r = RESOURCES.find((x) => x.uri === uri);
    if (!r) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
    let value: unknown;
    switch (r.name) {
      case "models":
        value = await this.engine.assetModels({});
        break;
      case "voices":
        value = await this.engine.voiceList({});
        break;
      case "looks":
        value = await this.engine.avatarList({});
        break;
      default:
        value = (await import("../features/generation/client/plan-schema.js")).planJsonSchema();
    }
    return { uri, mimeType: r.mimeType, text: redact(JSON.stringify(value, null, 2)) };
  }

  /** Builds the MCP server over the session. */
  server(): Server {
    const server = new Server(
      { name: "mediagen", version: this.ctx.version },
      {
        capabilities: { tools: {}, resources: {} },
        instructions:
          `mediagen on the ${this.engine.target} target. One tool per service operation; wait_for waits on any job, download saves a finished result into an allowed directory, price tells a start's cost first. ` +
          "Read mediagen://schema/sequence-plan before building a generation_start sequence_plan." +
          (this.options.maxCredits !== undefined ? ` This session may spend at most ${this.options.maxCredits} credits.` : "") +
          (this.options.readOnly ? " This session is read-only." : ""),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.listTools() }));
    // Registered under a lenient schema: the SDK then checks the call itself and answers a malformed
    // one with "invalid params" (-32602), where its own strict schema would make it an internal error.
    server.setRequestHandler(CALL_TOOL, (req, extra) => {
      const { params } = CallToolRequestSchema.parse(req);
      return this.callTool(params.name, (params.arguments ?? {}) as Args, extra as Extra);
    });
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES.map((r) => ({ ...r })) }));
    server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      try {
        return { contents: [await this.readResource(req.params.uri)] };
      } catch (e) {
        if (e instanceof McpError) throw e;
        throw new McpError(ErrorCode.InternalError, redact(e instanceof Error ? e.message : String(e)));
      }
    });
    server.onerror = (e) => this.trace(`protocol: ${e.message}`);
    return server;
  }

  /** Serves until the client closes stdin or the process is asked to stop. */
  async serve(): Promise<void> {
    const { io } = this.ctx;
    const guard = guardStdout(io.stdout, io.stderr);
    const server = this.server();
    const transport = new StdioServerTransport(io.stdin, guard.protocol as Writable);
    // A line that is not JSON, or not a JSON-RPC message, still gets a JSON-RPC answer (id null).
    transport.onerror = (e: Error) => {
      const parse = e.name === "SyntaxError";
      const invalid = e.name === "ZodError";
      if (!parse && !invalid) return;
      const error = parse ? { code: ErrorCode.ParseError, message: "Parse error" } : { code: ErrorCode.InvalidRequest, message: "Invalid Request" };
      void transport.send({ jsonrpc: "2.0", id: null, error } as unknown as JSONRPCMessage).catch(() => undefined);
    };
    const closed = new Promise<string>((resolve) => {
      io.stdin.once("end", () => resolve("end of input"));
      io.stdin.once("close", () => resolve("end of input"));
      io.stdin.once("error", () => resolve("input error"));
    });
    try {
      await server.connect(transport);
      io.info(
        `mediagen mcp: serving ${this.listTools().length} tools over stdio on the ${this.engine.target} target` +
          (this.options.readOnly ? ", read-only" : "") +
          (this.options.maxCredits !== undefined ? `, at most ${this.options.maxCredits} credits` : "") +
          (this.options.allowDirs.length ? `, downloads into ${this.options.allowDirs.join(", ")}` : ", downloads off (--allow-dir)"),
      );
      const why = await Promise.race([closed, this.ctx.runtime.signals.nextStop()]);
      this.trace(`stopping (${why})`);
    } finally {
      this.ended.abort(new Error("session ended"));
      await server.close().catch(() => undefined);
      guard.restore();
    }
  }
}

export async function runMcp(ctx: CommandContext, options: McpOptions): Promise<void> {
  const engine = await ctx.engine();
  // The local default key is used without being configured: masked like a configured one.
  if (engine.target === "local" && !ctx.runtime.engine && !ctx.resolve().key) registerSecret((await ctx.localInstance()).defaultKey());
  await new McpSession(ctx, engine, options).serve();
}
