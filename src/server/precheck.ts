import { hasApiAccess } from "../contract/plans.js";
import { authenticate } from "../engine/local/keys.js";
import type { LocalInstance } from "../engine/local/instance.js";
import type { UrlBuilder } from "../engine/local/types.js";
import type { Precheck } from "./routes.js";

const NO_URLS: UrlBuilder = { media: () => "" };

/**
 * The key's verdict for a request that fails before it reaches the service (unknown path, wrong
 * method, bad body), so 401/403 come before anything else, as on the service.
 */
export function localPrecheck(instance: LocalInstance): (authorization: string | undefined) => Promise<Precheck> {
  return async (authorization) => {
    const auth = authenticate(instance.db, authorization);
    if (!auth.ok) return { denied: { status: auth.status, body: auth.body } };
    if (!hasApiAccess(auth.space.plan)) {
      // The service answers a space without API access with its 403 before looking at the operation
      // (nothing is run or counted), so its exact body is taken from there rather than copied.
      return { denied: await instance.service.dispatch(authorization, "folderList", {}, { urls: NO_URLS }) };
    }
    return { rateLimit: instance.rateLimiter.peek(auth.space.id) };
  };
}
