/**
 * The handler's own verdict on a request the contract refuses. A handler judges in the service's
 * order and words (a model's plan before its references, "type is required" before anything else);
 * the contract judges every field at once. When the contract finds a problem, the handler is run on
 * an instance that stops it at its first write (a transaction, the ledger, the job queue, a write
 * statement): a handler that refuses before that gives its own answer; one that gets that far would
 * have accepted what the contract forbids, and the contract's answer stands. Nothing is written
 * either way.
 */
import { ApiError } from "../engine/errors.js";
import type { Handler, RequestContext } from "./types.js";

class ReachedWrite extends Error {}

const stop = (): never => {
  throw new ReachedWrite("the handler reached a write");
};

function bindAll<T extends object>(target: T, override: (p: PropertyKey) => unknown): T {
  return new Proxy(target, {
    get(t, p) {
      const own = override(p);
      if (own !== undefined) return own;
      const v = Reflect.get(t, p, t) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

const READ_ONLY_SQL = /^\s*(select|pragma|with)\b/i;

function readOnly(instance: RequestContext["instance"]): RequestContext["instance"] {
  const db = bindAll(instance.db, (p) => {
    if (p === "prepare") return (sql: string) => (READ_ONLY_SQL.test(sql) ? instance.db.prepare(sql) : stop());
    if (p === "exec" || p === "transaction") return stop;
    return undefined;
  });
  return bindAll(instance, (p) => {
    if (p === "tx" || p === "kick") return stop;
    if (p === "ledger" || p === "jobs" || p === "webhooks") stop();
    if (p === "db") return db;
    return undefined;
  });
}

/**
 * The handler's error for `input` when it refuses it before writing (a 4xx other than 402, which
 * only says the request got as far as the debit); undefined when it would have gone on.
 */
export async function handlerRefusal(handler: Handler<never>, ctx: RequestContext, input: unknown): Promise<ApiError | undefined> {
  try {
    await handler({ ...ctx, instance: readOnly(ctx.instance) }, input as never);
  } catch (e) {
    if (e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 402) return e;
  }
  return undefined;
}
