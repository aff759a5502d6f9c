import crypto from "node:crypto";
import { WEBHOOK_MAX_ATTEMPTS, type WebhookPayload } from "../contract/webhook.js";
import type { LocalInstanceApi, WebhooksApi } from "./types.js";
import type { FaultAction } from "./fault-rule.js";

export interface WebhookAttemptView {
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: string;
}

export interface WebhookDeliveryView {
  id: string;
  /** The `webhook-id` it is sent with: its own id, or for a duplicate the first delivery's. */
  webhook_id: string;
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

interface DeliveryRow extends Omit<WebhookDeliveryView, "payload" | "attempt_log" | "webhook_id"> {
  payload: string;
  webhook_id: string | null;
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

  /**
   * Writes the delivery and queues it, as the webhook fault rules of its task say (faults.ts): a
   * dropped delivery is recorded `failed` and never sent, a duplicated one is sent twice (two
   * deliveries, the same body and the same `webhook-id`), a delayed one waits, a reordered one is held until the next
   * delivery to the same URL has been made (or its hold runs out).
   */
  enqueue(spaceId: string | null, url: string, payload: WebhookPayload): string {
    const actions = this.instance.faults?.fire("webhook", String(payload.task ?? ""), spaceId) ?? [];
    return this.instance.tx(() => {
      const id = this.write(spaceId, url, payload, actions);
      if (actions.some((a) => a.kind === "webhook_duplicate") && !actions.some((a) => a.kind === "webhook_drop")) this.write(spaceId, url, payload, [], id);
      return id;
    });
  }

  /** A delivery row (and its job unless dropped); `webhookId` names the message it repeats (a duplicate's). */
  private write(spaceId: string | null, url: string, payload: WebhookPayload, actions: FaultAction[], webhookId?: string): string {
    const id = this.instance.ids.prefixed("whd_");
    const dropped = actions.some((a) => a.kind === "webhook_drop");
    this.instance.db
      .prepare(
        `INSERT INTO webhook_deliveries (id, webhook_id, space_id, url, task, payload, status, attempts, created_at, last_error)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
      )
      .run(
        id,
        webhookId ?? id,
        spaceId,
        url,
        payload.task ?? null,
        JSON.stringify(payload),
        dropped ? "failed" : "pending",
        this.instance.nowIso(),
        dropped ? "dropped by a fault rule" : null,
      );
    if (dropped) return id;
    const now = this.instance.clock.now();
    let runAfter = now;
    let held = false;
    for (const a of actions) {
      if (a.kind === "webhook_delay") runAfter = Math.max(runAfter, now + a.ms);
      if (a.kind === "webhook_reorder") {
        runAfter = Math.max(runAfter, now + a.hold_ms);
        held = true;
      }
    }
    this.instance.jobs.enqueue({ kind: "webhook", spaceId, ref: id, maxAttempts: WEBHOOK_MAX_ATTEMPTS, runAfter, ...(held ? { payload: { held: true } } : {}) });
    return id;
  }

  list(spaceId?: string): WebhookDeliveryView[] {
    const rows = this.instance.db
      .prepare("SELECT * FROM webhook_deliveries WHERE (@space IS NULL OR space_id = @space) ORDER BY created_at, rowid")
      .all({ space: spaceId ?? null }) as DeliveryRow[];
    return this.views(rows);
  }

  /** One delivery with its attempts. */
  get(id: string): WebhookDeliveryView | undefined {
    const row = this.instance.db.prepare("SELECT * FROM webhook_deliveries WHERE id = ?").get(id) as DeliveryRow | undefined;
    return row ? this.views([row])[0] : undefined;
  }

  private views(rows: DeliveryRow[]): WebhookDeliveryView[] {
    const db = this.instance.db;
    const attempts = db.prepare("SELECT attempt, status_code, error, duration_ms, at FROM webhook_attempts WHERE delivery_id = ? ORDER BY id");
    return rows.map((r) => ({
      ...r,
      webhook_id: r.webhook_id ?? r.id,
      payload: JSON.parse(r.payload) as unknown,
      attempt_log: attempts.all(r.id) as WebhookAttemptView[],
    }));
  }
}
