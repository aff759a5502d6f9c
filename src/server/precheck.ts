import type { LocalInstance } from "../local/instance.js";
import type { Precheck } from "./routes.js";

/**
 * The key's verdict for a request that fails before it reaches the service (unknown path, wrong
 * method, bad body), so 401/403 come before anything else, as on the service.
 */
export function localPrecheck(instance: LocalInstance): (authorization: string | undefined) => Promise<Precheck> {
  return async (authorization) => {
    const gate = instance.service.authorize(authorization);
    if (!gate.space) return { denied: gate.denied };
    return { rateLimit: instance.rateLimiter.peek(gate.space.id) };
  };
}
