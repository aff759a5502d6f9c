/**
 * What the CLI adds around every engine call, whichever the target:
 * - `--simulate` only reaches the local target: the hosted service ignores X-Local-Simulate and
 *   would run (and charge) a real generation, so it is refused before anything is sent (exit 2);
 * - a call that waits out a 429 says so (the frame prints it once per command);
 * - a request that may have been acted on (a POST that starts or makes something) and ended badly
 *   (a 5xx, an unreadable 2xx, a connection lost after sending, Ctrl-C while in flight) says that
 *   it may have been received and how to check, before the user repeats it and pays twice;
 * - every start that succeeds is told to `onStarted` (the CLI records it in the history), whichever
 *   surface made it: a command, an `--export` chain, batch, MCP, the wizard.
 * What an operation is (a read, a paid or a free start, where to check) is its life (src/features/lives.ts).
 */
import { ROUTES } from "../features/routes.js";
import { isRead, lifeOf } from "../features/lives.js";
import { BaseEngine, type CallOptions, type Engine, type OpName, type OpRequest, type OpResponse, type RateLimitInfo } from "../engine/engine.js";
import { CliError, EXIT } from "./types.js";

export interface GuardOptions {
  /** Registers a Ctrl-C handler while a request with effects is in flight; returns its removal. */
  onInterrupt(handler: () => void): () => void;
  /** Told when a call waits out a 429. */
  onRateLimited(waitMs: number): void;
  /** Told of every start the service accepted (the history records it). */
  onStarted?(op: OpName, input: Record<string, unknown>, res: unknown): Promise<void>;
}

function mayHaveLanded(op: OpName): string {
  return `the request may have been received, and the service may have acted on it${lifeOf(op).effect === "free start" ? "" : " (and debited credits)"}`;
}

/** Where the user sees whether `op` happened, on this target. */
export function howToCheck(op: OpName, input: Record<string, unknown>, target: Engine["target"]): string {
  const balance =
    target === "local"
      ? "`mediagen local spaces list` shows the balance and `mediagen local ledger <space_id>` every debit"
      : "the service's dashboard shows recent jobs and the balance";
  const where = lifeOf(op).check?.(input);
  return lifeOf(op).effect === "free start" && where ? where : where ? `${where}; ${balance}` : balance;
}

/** The failures after which a request with effects may still have been acted on. */
function couldHaveLanded(err: unknown): boolean {
  const e = (err && typeof err === "object" ? err : {}) as { name?: string; status?: unknown; message?: unknown };
  if (e.name === "ApiError") return typeof e.status === "number" && e.status >= 500;
  // A 2xx the CLI could not read: the service handled the request.
  if (e.name === "UnexpectedResponseError") return true;
  // The hosted client says so when the connection failed after the request could have been sent.
  if (e.name === "NetworkError") return typeof e.message === "string" && e.message.includes("may have reached the service");
  return false;
}

export class GuardedEngine extends BaseEngine {
  readonly target;

  constructor(
    private readonly inner: Engine,
    private readonly guard: GuardOptions,
  ) {
    super();
    this.target = inner.target;
  }

  async call<K extends OpName>(op: K, input: OpRequest<K>, opts: CallOptions = {}): Promise<OpResponse<K>> {
    if (opts.simulate !== undefined && this.target !== "local") {
      throw new CliError(
        "--simulate: only the local instance simulates failures; on the hosted target it would start a real, paid job (use --target local)",
        EXIT.usage,
        "usage_error",
        "--simulate",
      );
    }
    const callOpts: CallOptions = {
      ...opts,
      onRateLimited: (ms) => {
        this.guard.onRateLimited(ms);
        opts.onRateLimited?.(ms);
      },
    };
    const def = ROUTES[op];
    if (def.method === "GET" || isRead(op)) return this.inner.call(op, input, callOpts);

    const what = `${def.method} ${def.path}`;
    const check = () => howToCheck(op, (input ?? {}) as Record<string, unknown>, this.target);
    const ac = new AbortController();
    const forward = () => ac.abort(opts.signal?.reason);
    if (opts.signal?.aborted) forward();
    opts.signal?.addEventListener("abort", forward, { once: true });
    let onCtrlC: () => void = () => {};
    const interrupted = new Promise<never>((_, reject) => {
      onCtrlC = () => {
        ac.abort(new Error("interrupted"));
        reject(new CliError(`Interrupted while ${what} was in flight: ${mayHaveLanded(op)}. Before repeating it, check: ${check()}.`, EXIT.interrupted, "interrupted"));
      };
    });
    const off = this.guard.onInterrupt(() => onCtrlC());
    try {
      // Raced, so Ctrl-C is reported at once even by an engine that does not honour the signal.
      const res = await Promise.race([this.inner.call(op, input, { ...callOpts, signal: ac.signal }), interrupted]);
      await this.guard.onStarted?.(op, (input ?? {}) as Record<string, unknown>, res);
      return res;
    } catch (err) {
      if (couldHaveLanded(err) && err && typeof err === "object") {
        try {
          (err as { hint?: string }).hint = `${capitalise(mayHaveLanded(op))}. Before repeating it, check: ${check()}.`;
        } catch {
          // a frozen error goes out as it is
        }
      }
      throw err;
    } finally {
      off();
      opts.signal?.removeEventListener("abort", forward);
    }
  }

  override lastRateLimit(): RateLimitInfo | undefined {
    return this.inner.lastRateLimit();
  }

  override close(): Promise<void> {
    return this.inner.close();
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
