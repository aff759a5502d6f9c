/**
 * The contract's judgement of a request the CLI is about to price or estimate without sending it
 * (`--dry-run`): the same check the hosted client makes before sending and the local instance before
 * handling, so a dry run never prices what the service would refuse. Loads the schemas lazily.
 */
import type { OpName } from "../features/operations.js";

/** Throws the service's 400 (an ApiError: exit 2, naming the flag) for the first problem of `body`. */
export async function refuseAsTheServiceWould(op: OpName, body: Record<string, unknown>): Promise<void> {
  const wire = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const refused = await (await import("../features/request-check.js")).refuseRequest(op, wire);
  if (!refused) return;
  // Refused here, before sending: the error says that `mediagen api` sends it as it is.
  const { refusedBeforeSending } = await import("../engine/errors.js");
  throw refusedBeforeSending(refused.status, refused.body);
}
