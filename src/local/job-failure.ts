/**
 * The step every job kind ends a failure with (assets, looks, generations, exports): its debit
 * given back, once (the ledger keys a refund by the debit's ref, so whichever path fails the job
 * first refunds it), and the failure told to the request's webhook, if it gave one.
 */
import type { WebhookPayload, WebhookTask } from "../contract/webhook.js";
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

/** Why a job failed: the code and message its status read and its failure webhook give. */
export interface JobFailure {
  code: string;
  message: string;
}

/** What a job's row holds of its debit and its webhook (assets, generations, exports). */
export interface FailedJobRow {
  id: string;
  space_id: string;
  cost_milli: number;
  webhook_url: string | null;
}

/**
 * refundAndNotify for a job known by its row: the debit given back under the job's id, and the
 * webhook told `{task, <the job's id field>, status: "failed", error}`.
 */
export function refundFailedJob(
  instance: Pick<LocalInstanceApi, "ledger" | "webhooks">,
  row: FailedJobRow,
  note: string,
  job: { task: WebhookTask } & ({ job_id: string } | { asset_id: string }),
  failure: JobFailure,
): void {
  refundAndNotify(instance, {
    spaceId: row.space_id,
    costMilli: row.cost_milli,
    ref: row.id,
    note,
    webhookUrl: row.webhook_url,
    notice: { ...job, status: "failed", error: { code: failure.code, message: failure.message } },
  });
}
