import { readEnv } from "../config/env.js";

/**
 * Why background work or a request failed, on stderr, only when MEDIAGEN_DEBUG is set: the local
 * instance runs inside CLI commands whose stderr belongs to the command, and inside workers whose
 * failures are otherwise recorded on the job.
 */
export function localDebug(text: string, source = "mediagen-local"): void {
  if (shown || readEnv("MEDIAGEN_DEBUG")) process.stderr.write(`${source}: ${text}\n`);
}

let shown = false;

/**
 * The lines on for this process whatever MEDIAGEN_DEBUG says: `serve --debug`, the process's one
 * command, whose stderr is the operator's (an ignored query parameter, why a request or a job failed).
 */
export function showLocalDebug(): void {
  shown = true;
}
