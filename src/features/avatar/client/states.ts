/**
 * A look's state in human output: the service's own word, as `--json` shows it — the status
 * endpoint's `pending`/`processing`/`completed`/`failed` (`avatar status`, waits), the look record's
 * `pending`/`ready`/`error` (`avatar list|get`). One vocabulary between text and JSON, so what a
 * person reads is what a script greps for. Plain: the history table uses it too.
 */
export function lookStateText(status: string): string {
  return status;
}
