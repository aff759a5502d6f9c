import { readEnv } from "../config/env.js";

/**
 * Why background work or a request failed, on stderr, only when MEDIAGEN_DEBUG is set: the local
 * instance runs inside CLI commands whose stderr belongs to the command, and inside workers whose
 * failures are otherwise recorded on the job.
 */
export function localDebug(text: string, source = "mediagen-local"): void {
  if (readEnv("MEDIAGEN_DEBUG")) process.stderr.write(`${source}: ${text}\n`);
}
