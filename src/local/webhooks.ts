import crypto from "node:crypto";
import { WEBHOOK_MAX_ATTEMPTS, type WebhookPayload } from "../contract/webhook.js";
import type { LocalInstanceApi, WebhooksApi } from "./types.js";

export interface WebhookAttemptView {
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: string;
}

export interface WebhookDeliveryView {
  id: string;
  space_id: string | null;
  url: string;
  task: string | null;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  created_at: string;
  delivered_at: string | null;
  last_status: number | null;
  last_error: string | null;
  payload: unknown;
  attempt_log: WebhookAttemptView[];
}

interface DeliveryRow extends Omit<WebhookDeliveryView, "payload" | "attempt_log"> {
  payload: string;
}

/** Standard Webhooks: secrets written `whsec_<base64>` are keys in base64; any other string is used as is. */
export function webhookSigningKey(secret: string): Buffer {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (Standard Webhooks). */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = crypto.createHmac("sha256", webhookSigningKey(secret)).update(`${id}.${timestamp}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/**
 * The webhook outbox: a delivery row and its job are written in the caller's transaction (the state
 * change that the webhook announces), and a worker sends it.
 */
export class Webhooks implements WebhooksApi {
  constructor(private readonly instance: LocalInstanceApi) {}

  enqueue(spaceId: string | null, url: string, payload: WebhookPayload): string {
    const id = this.instance.ids.prefixed("whd_");
    this.instance.tx(() => {
      this.instance.db
        .prepare(
          `INSERT INTO webhook_deliveries (id, space_id, url, task, payload, status, attempts, created_at)
           VALUES (?, ?, ?, ?, ?, 'pending', 0, ?)`,
        )
        .run(id, spaceId, url, payload.task ?? null, JSON.stringify(payload), this.instance.nowIso());
      this.instance.jobs.enqueue({ kind: "webhook", spaceId, ref: id, maxAttempts: WEBHOOK_MAX_ATTEMPTS });
    });
    return id;
  }

  list(spaceId?: string): WebhookDeliveryView[] {
    const db = this.instance.db;
    const rows = db
      .prepare("SELECT * FROM webhook_deliveries WHERE (@space IS NULL OR space_id = @space) ORDER BY created_at, rowid")
      .all({ space: spaceId ?? null }) as DeliveryRow[];
    const attempts = db.prepare(
      "SELECT attempt, status_code, error, duration_ms, at FROM webhook_attempts WHERE delivery_id = ? ORDER BY id",
    );
    return rows.map((r) => ({
      ...r,
      payload: JSON.parse(r.payload) as unknown,
      attempt_log: attempts.all(r.id) as WebhookAttemptView[],
    }));
  }
}
