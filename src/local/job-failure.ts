/**
 * The step every job kind ends a failure with (assets, looks, generations, exports): its debit
 * given back, once (the ledger keys a refund by the debit's ref, so whichever path fails the job
 * first refunds it), and the failure told to the request's webhook, if it gave one.
 */
import type { WebhookPayload } from "../contract/webhook.js";
import type { LocalInstanceApi } from "./types.js";

export interface FailedJob {
  spaceId: string;
  /** What was debited at the start (nothing to give back when it was free). */
  costMilli: number;
  /** The debit's ref: the job's id. */
  ref: string;
  /** The ledger's note for the refund. */
  note: string;
  webhookUrl: string | null;
  notice: WebhookPayload;
}

export function refundAndNotify(instance: Pick<LocalInstanceApi, "ledger" | "webhooks">, job: FailedJob): void {
  if (job.costMilli > 0) instance.ledger.refund(job.spaceId, job.costMilli, job.ref, job.note);
  if (job.webhookUrl) instance.webhooks.enqueue(job.spaceId, job.webhookUrl, job.notice);
}
