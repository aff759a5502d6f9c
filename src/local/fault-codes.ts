/**
 * What a fault rule may make an operation answer or a job end with: the codes the spec (and
 * hosted-facts) list for each operation (kept with its route, in its feature's `routes.ts`), so a
 * fault is always an answer the real service can give.
 */
import type { RouteFacts } from "../contract/operation.js";

/** The route facts of every operation, by name (the features' `routes.ts`, handed in by the instance). */
export type Routes = Readonly<Record<string, RouteFacts>>;

/** Answers any operation can give: a key refused, a plan missing, the window used up, the service failing. */
export const ANY_OPERATION_CODES = ["invalid_api_key", "plan_required", "rate_limit_exceeded", "internal_error", "service_unavailable"] as const;

/** The code a bare status means for an operation (`--status 404` on asset status is `asset_not_found`). */
export function defaultCodeFor(op: string, status: number, routes: Routes): string | undefined {
  switch (status) {
    case 401:
      return "invalid_api_key";
    case 403:
      return "plan_required";
    case 429:
      return "rate_limit_exceeded";
    case 500:
      return "internal_error";
    case 503:
      return "service_unavailable";
    default: {
      const own = operationCodes(op, routes);
      const byStatus: Record<number, RegExp> = { 400: /^(invalid_value|INVALID_VALUE|missing_field|MISSING_)/, 402: /credits|not_eligible/i, 404: /not_found/i };
      const re = byStatus[status];
      return re ? own.find((c) => re.test(c)) : undefined;
    }
  }
}

/** Request error codes of an operation beyond ANY_OPERATION_CODES (its `routes.ts`). */
export function operationCodes(op: string, routes: Routes): readonly string[] {
  return routes[op]?.errors ?? [];
}

/** The operations that start a job, with what that job may fail with (and at which step). */
export function jobFaults(routes: Routes): Record<string, NonNullable<RouteFacts["job"]>> {
  return Object.fromEntries(Object.entries(routes).flatMap(([op, r]) => (r.job ? [[op, r.job]] : [])));
}

/** Status reads whose `progress` / `progress_step` a `progress_backwards` rule lowers. */
export function progressOperations(routes: Routes): string[] {
  return Object.keys(routes).filter((op) => routes[op]!.progress);
}

/** Webhook tasks (hosted-facts), the `op` of webhook rules. */
export const WEBHOOK_TASKS = ["asset_generation", "avatar_create", "avatar_edit", "video_generate", "video_export"] as const;
