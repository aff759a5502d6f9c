/**
 * `mediagen api <METHOD> <path>`: any request to the service, as `gh api` sends any request to
 * GitHub's. It reaches what the contract's schemas do not know yet (a new endpoint, a field the
 * client-side check refuses) with the profile's key and base URL, the hosted client's retries, 429
 * waits, proxy and redacted --debug; on the local target it goes through the local instance's own
 * dispatch (the one `serve` uses), so every path works offline. stdout carries the body (pretty JSON
 * on a terminal, as received otherwise), for errors too; the exit code is the status's class.
 */
import type { Command } from "commander";
import { defineFlags, type FlagInput } from "../flags.js";
import { examples } from "../help-text.js";
import { CliError, EXIT } from "../types.js";
import type { CommandModule } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import { apiFields, apiMethod, buildApiRequest, inputBody, queryStrings, type ApiRequest } from "../api-request.js";

const API_FLAGS = defineFlags({
  field: {
    flag: "-F, --field <key=value>",
    type: "list",
    help: "a typed field: true, false, null, numbers and JSON are sent as such; @file sends a file's text (repeatable)",
  },
  rawField: { flag: "-f, --raw-field <key=value>", type: "list", help: "a string field (repeatable)" },
  input: { flag: "--input <file>", type: "string", help: "the request body from a JSON file, or - for stdin (fields then go in the query string)" },
});
type ApiFlags = ReturnType<typeof API_FLAGS.values>;

/** What came back: status, the parsed body and (hosted, 2xx) the text as received. */
interface ApiAnswer {
  status: number;
  body: unknown;
  text?: string;
}

async function readFileText(ctx: CommandContext, file: string, flag: string): Promise<string> {
  const { readWithinBodyLimit } = await import("../body.js");
  return readWithinBodyLimit(file, ctx.io, flag);
}

/** The request of this command line. */
async function requestOf(ctx: CommandContext, method: string, rawPath: string, opts: ApiFlags): Promise<ApiRequest> {
  const m = apiMethod(method);
  const fields = await apiFields({ raw: opts.rawField ?? [], typed: opts.field ?? [] }, (file) => readFileText(ctx, file, "-F"));
  const input = opts.input !== undefined ? { body: inputBody(await readFileText(ctx, opts.input, "--input"), opts.input === "-" ? "stdin" : opts.input) } : undefined;
  return buildApiRequest(m, rawPath, fields, input);
}

function withQuery(path: string, query: Record<string, string>): string {
  const q = new URLSearchParams(query).toString();
  return q ? `${path}?${q}` : path;
}

/** The hosted service (or `serve`) over HTTP, with the hosted client's retries, waits, proxy and --debug. */
async function sendHosted(ctx: CommandContext, req: ApiRequest): Promise<ApiAnswer> {
  const { HttpClient } = await import("../../hosted/client.js");
  const http = new HttpClient(ctx.hostedOptions());
  try {
    const path = withQuery(req.path, queryStrings(req.query));
    const res = await http.send({ method: req.method, path, ...(req.method === "POST" ? { body: (req.body ?? {}) as Record<string, unknown> } : {}) });
    return { status: res.status, body: res.body, ...(res.text !== undefined ? { text: res.text } : {}) };
  } finally {
    await http.close();
  }
}

/** The local instance through its own dispatch: the route table of `serve`, then the operation's handler. */
async function sendLocal(ctx: CommandContext, req: ApiRequest): Promise<ApiAnswer> {
  const [{ matchRoute, API_PREFIX }, { errorResponse }] = await Promise.all([import("../../features/routes.js"), import("../../contract/errors.js")]);
  const where = `${req.method} ${API_PREFIX}${req.path}`;
  let route: ReturnType<typeof matchRoute>;
  try {
    route = matchRoute(req.method, req.path);
  } catch {
    return errorResponse("invalid_value", "The request path has a malformed %-escape", { status: 400, error: "Bad request" });
  }
  if (!route) return errorResponse("not_found", `No such endpoint: ${where}`, { status: 404, error: "Not found" });
  if ("allowed" in route) {
    return errorResponse("method_not_allowed", `Method ${req.method} is not allowed for ${API_PREFIX}${req.path}; use ${route.allowed.join(", ")}`, {
      status: 405,
      error: "Method not allowed",
    });
  }
  let input: Record<string, unknown>;
  if (req.method === "POST") {
    const body = req.body ?? {};
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      return errorResponse("invalid_value", "Request body must be a JSON object", { status: 400, error: "Invalid request body" });
    }
    input = { ...(body as Record<string, unknown>), ...route.params };
  } else input = { ...queryStrings(req.query), ...route.params };
  const engine = await ctx.engine();
  // The local instance's answer to the operation: its body, as a wire would carry it.
  return { status: 200, body: await engine.call(route.op, input as never) };
}

/** Pretty JSON on a terminal; as received (or compact JSON) otherwise. */
function printBody(ctx: CommandContext, answer: ApiAnswer): void {
  if (answer.body === undefined && answer.text === undefined) return;
  if (ctx.io.isStdoutTTY || answer.text === undefined) {
    ctx.io.out(ctx.io.isStdoutTTY ? JSON.stringify(answer.body, null, 2) : JSON.stringify(answer.body));
    return;
  }
  ctx.io.out(answer.text.replace(/\n$/, ""));
}

/** An error answer's body on stdout too (as `gh api` does), then the error for its exit code. */
async function printAndThrow(ctx: CommandContext, err: unknown): Promise<never> {
  const e = err as { name?: string; status?: number; body?: unknown };
  if (e?.name === "ApiError" && typeof e.status === "number") printBody(ctx, { status: e.status, body: e.body });
  throw err;
}

async function run(ctx: CommandContext, method: string, path: string, opts: ApiFlags): Promise<void> {
  const req = await requestOf(ctx, method, path, opts);
  const target = await ctx.target();
  let answer: ApiAnswer;
  try {
    answer = target === "local" ? await sendLocal(ctx, req) : await sendHosted(ctx, req);
  } catch (err) {
    return printAndThrow(ctx, err);
  }
  if (answer.status >= 400) {
    const { ApiError } = await import("../../engine/errors.js");
    return printAndThrow(ctx, new ApiError(answer.status, answer.body));
  }
  printBody(ctx, answer);
}

export const command: CommandModule = {
  register(api: Command, getContext) {
    API_FLAGS.addTo(
      api.argument("<method>", "GET or POST").argument("<path>", "relative to the target's base URL: /asset/models or asset/models (a query string may follow)"),
    ).action(async (method: string, path: string, raw: FlagInput<typeof API_FLAGS>, cmd: Command) => {
      const ctx = getContext(cmd);
      const opts = API_FLAGS.values(raw);
      if (opts.input === "-" && (opts.field ?? []).some((f) => f.includes("=@-"))) {
        throw new CliError("--input - and -F key=@- cannot both read stdin", EXIT.usage, "usage_error", "--input");
      }
      await run(ctx, method, path, opts);
    });
    examples(api, [
      "mediagen api GET /asset/models -f type=video",
      "mediagen api GET asset/models/vidA-3 | jq .input_schema",
      "mediagen api POST /asset/pricing -f model=vidA-3 -F duration=8",
      "mediagen api POST /folder/create -f name=Campaign -F parent_folder_id=null",
      "mediagen api POST /generation/start --input request.json",
      "mediagen --target hosted --debug api GET /voice/list -f language=en",
    ]);
  },
};
