/**
 * One vocabulary for a look's state in human output, whichever endpoint told it: the status
 * endpoint's `completed`/`failed` and the look record's `ready`/`error` read as `ready`/`failed`
 * (`--json` keeps the service's words). Plain: the history table uses it too.
 */
export function lookStateText(status: string): string {
  if (status === "completed" || status === "ready") return "ready";
  if (status === "failed" || status === "error") return "failed";
  return status;
}
