import { WEBHOOK_BACKOFF_MS, WEBHOOK_MARKER_HEADER, WEBHOOK_TIMEOUT_MS } from "../contract/webhook.js";
import type { JobKind, JobRow, LocalInstanceApi } from "./types.js";
import type { JobKindBackoff } from "./jobs.js";
import { signWebhook } from "./webhooks.js";
import { mediagenVersion } from "./version.js";

interface Delivery {
  id: string;
  /** NULL for rows written before migration 11: the delivery's own id. */
  webhook_id: string | null;
  url: string;
  payload: string;
  status: string;
  attempts: number;
}

/** Lets tests shorten the 10 s timeout without touching the contract. */
export const webhookTiming = { timeoutMs: WEBHOOK_TIMEOUT_MS };

function describeFailure(e: unknown): string {
  if (e instanceof Error) {
    if (e.name === "TimeoutError") return `timed out after ${webhookTiming.timeoutMs} ms`;
    const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code) return `${e.message} (${cause.code})`;
    return e.message;
  }
  return String(e);
}

function settingOf(instance: LocalInstanceApi, key: string): string | undefined {
  const row = instance.db.prepare("SELECT value FROM settings WHERE key = ?").get(key) as { value: string } | undefined;
  return row?.value;
}

function recordAttempt(instance: LocalInstanceApi, d: Delivery, job: JobRow, status: number | null, error: string | null, ms: number): void {
  instance.tx(() => {
    instance.db
      .prepare("INSERT INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms, at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(d.id, job.attempts, status, error, Math.round(ms), instance.nowIso());
    instance.db.prepare("UPDATE webhook_deliveries SET attempts = MAX(attempts, ?), last_status = ?, last_error = ? WHERE id = ?").run(job.attempts, status, error, d.id);
  });
}

/**
 * One POST per attempt, as the hosted service sends them: JSON, product User-Agent, marker header,
 * 10 s timeout, any 2xx is success, 3 attempts 1 s then 2 s apart (the queue's run_after, not sleeps).
 * Every attempt is recorded, whatever happens to the lease afterwards.
 */
export const webhookKind: JobKind & JobKindBackoff = {
  backoffMs: (attempt) => WEBHOOK_BACKOFF_MS[Math.min(attempt, WEBHOOK_BACKOFF_MS.length) - 1] ?? 2_000,

  async run(job, ctx) {
    const { instance } = ctx;
    const d = instance.db.prepare("SELECT * FROM webhook_deliveries WHERE id = ?").get(job.ref) as Delivery | undefined;
    if (d?.status !== "pending") return { commit: () => {} };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": `mediagen-local/${mediagenVersion()}`,
      [WEBHOOK_MARKER_HEADER]: "1",
    };
    // Every delivery names its message, signed or not: a retry, a resend and a duplicate keep it.
    const webhookId = d.webhook_id ?? d.id;
    headers["webhook-id"] = webhookId;
    const secret = settingOf(instance, "webhook_secret");
    if (secret) {
      const timestamp = Math.floor(instance.clock.now() / 1000);
      headers["webhook-timestamp"] = String(timestamp);
      headers["webhook-signature"] = signWebhook(secret, webhookId, timestamp, d.payload);
    }
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(d.url, {
        method: "POST",
        headers,
        body: d.payload,
        redirect: "manual",
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(webhookTiming.timeoutMs)]),
      });
      status = res.status;
      await res.body?.cancel().catch(() => {});
      if (status < 200 || status > 299) error = `receiver answered HTTP ${status}`;
    } catch (e) {
      error = describeFailure(e);
    }
    recordAttempt(instance, d, job, status, error, performance.now() - started);
    if (error !== null) throw new Error(error);
    return {
      commit: () => {
        instance.db
          .prepare("UPDATE webhook_deliveries SET status = 'delivered', delivered_at = ?, last_error = NULL WHERE id = ? AND status = 'pending'")
          .run(instance.nowIso(), d.id);
        // Deliveries a webhook_reorder fault rule held back for this one go now, after it.
        releaseHeld(instance, d.url, d.id);
      },
    };
  },

  giveUp(instance, job, error) {
    instance.db.prepare("UPDATE webhook_deliveries SET status = 'failed', last_error = COALESCE(last_error, ?) WHERE id = ? AND status = 'pending'").run(error, job.ref);
  },
};

function releaseHeld(instance: LocalInstanceApi, url: string, deliveredId: string): void {
  instance.db
    .prepare(
      `UPDATE jobs SET run_after = ? WHERE kind = 'webhook' AND status = 'queued' AND json_extract(payload, '$.held') = 1
         AND ref <> ? AND ref IN (SELECT id FROM webhook_deliveries WHERE url = ? AND status = 'pending')`,
    )
    .run(instance.clock.now(), deliveredId, url);
}

export const webhookKinds: Record<string, JobKind> = { webhook: webhookKind };
