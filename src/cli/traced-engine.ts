/** --debug for the in-process engine: its calls are traced like HTTP requests are. */
import { BaseEngine, type CallOptions, type Engine, type OpName, type OpRequest, type OpResponse, type RateLimitInfo } from "../engine/engine.js";
import type { Trace } from "./debug.js";

function rateLimitText(rl: RateLimitInfo | undefined): string {
  return rl ? ` rate-limit ${rl.remaining}/${rl.limit} reset ${rl.reset}` : "";
}

export class TracedEngine extends BaseEngine {
  readonly target;
  constructor(
    private readonly inner: Engine,
    private readonly trace: Trace,
    private readonly now: () => number = () => performance.now(),
  ) {
    super();
    this.target = inner.target;
  }

  async call<K extends OpName>(op: K, input: OpRequest<K>, opts?: CallOptions): Promise<OpResponse<K>> {
    const t0 = this.now();
    this.trace(`${this.target} ${op} ${JSON.stringify(input ?? {})}${opts?.simulate ? ` simulate=${opts.simulate}` : ""}`);
    try {
      const res = await this.inner.call(op, input, opts);
      this.trace(`${this.target} ${op} → ok (${Math.round(this.now() - t0)} ms)${rateLimitText(this.inner.lastRateLimit())}`);
      return res;
    } catch (e) {
      const err = e as { status?: number; code?: string; message?: string; name?: string };
      const what = typeof err.status === "number" ? `${err.status} ${err.code ?? ""}`.trim() : `${err.name ?? "Error"}: ${err.message ?? ""}`;
      this.trace(`${this.target} ${op} → ${what} (${Math.round(this.now() - t0)} ms)${rateLimitText(this.inner.lastRateLimit())}`);
      throw e;
    }
  }

  override lastRateLimit() {
    return this.inner.lastRateLimit();
  }

  override close() {
    return this.inner.close();
  }
}
