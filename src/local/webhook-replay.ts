/**
 * Webhooks on demand (`local webhooks resend|trigger`, Stripe's `events resend` and `trigger`): a
 * recorded delivery sent again, or a sample delivery of a task in the shape hosted-facts describes
 * (`task` discriminator, ids, `status`, `result` or `error`). Both go through the outbox like any
 * delivery: signed when a secret is set, retried, recorded, and subject to webhook fault rules.
 */
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_TASKS, type WebhookPayload } from "../contract/webhook.js";
import { JOB_ERROR_CODES } from "../contract/errors.js";
import { LocalAdminError } from "./admin-error.js";
import type { LocalInstanceApi } from "./types.js";

export interface TriggerOptions {
  /** Where to send it (an http(s) URL: `mediagen listen` prints one). */
  to: string;
  status?: "completed" | "failed";
  /** The failure's code (default: the task's usual one). */
  code?: string;
  /** Fields laid over the sample (the `task` stays the one asked for). */
  data?: Record<string, unknown>;
  spaceId?: string | null;
}

const FAILURE_CODE: Record<string, string> = {
  video_generate: JOB_ERROR_CODES.generation[0],
  video_export: JOB_ERROR_CODES.export[0],
  avatar_create: "GENERATION_FAILED",
  avatar_edit: "GENERATION_FAILED",
  asset_generation: JOB_ERROR_CODES.asset[0],
};

function checkUrl(url: string): string {
  let ok = false;
  try {
    ok = /^https?:$/.test(new URL(url).protocol);
  } catch {
    // not a URL
  }
  if (!ok) throw new LocalAdminError("invalid", `--to: expected an http(s) URL, got "${url}"`);
  return url;
}

/** A sample body of `task`, completed or failed, with fresh ids (what the real job would send). */
export function samplePayload(instance: Pick<LocalInstanceApi, "ids" | "nowIso">, task: string, status: "completed" | "failed", code?: string): WebhookPayload {
  const hex = () => instance.ids.hex24();
  const media = (kind: string, ext: string) => `https://media.invalid/sample/${kind}/${hex()}.${ext}`;
  const ids: Record<string, Record<string, unknown>> = {
    video_generate: { job_id: instance.ids.prefixed("run_") },
    video_export: { job_id: instance.ids.prefixed("exp_") },
    avatar_create: { avatar_id: hex(), look_id: hex() },
    avatar_edit: { avatar_id: hex(), look_id: hex() },
    asset_generation: { asset_id: hex() },
  };
  const results: Record<string, () => Record<string, unknown>> = {
    video_generate: () => ({ video_id: hex(), thumbnail_url: media("thumbnails", "jpg"), cost: 5, created_at: instance.nowIso() }),
    video_export: () => ({ video_url: media("exports", "mp4"), thumbnail_url: media("exports", "jpg"), cost: 0, created_at: instance.nowIso() }),
    avatar_create: () => look(hex, media),
    avatar_edit: () => look(hex, media),
    asset_generation: () => ({ asset_url: media("assets", "png"), asset_type: "image", width: 1024, height: 1024 }),
  };
  if (!(task in ids)) throw new LocalAdminError("invalid", `unknown webhook task "${task}" (tasks: ${WEBHOOK_TASKS.join(", ")})`);
  const base = { task, ...ids[task], status } as Record<string, unknown>;
  if (status === "completed") return { ...base, result: results[task]!() } as WebhookPayload;
  const c = code ?? FAILURE_CODE[task]!;
  return { ...base, error: { code: c, message: `Sample failure (${c})` } } as WebhookPayload;
}

function look(hex: () => string, media: (kind: string, ext: string) => string): Record<string, unknown> {
  return {
    id: hex(),
    name: "Sample look",
    place: "studio",
    accessories: [],
    action: "talking",
    emotion: "calm",
    selfie: false,
    format: "vertical",
    thumbnail: media("looks", "png"),
    preview: null,
    status: "ready",
    model_available: ["standard"],
  };
}

/** Queues a sample delivery of `task`; returns the delivery's id. */
export function triggerWebhook(instance: LocalInstanceApi, task: string, o: TriggerOptions): string {
  if (o.spaceId && !instance.db.prepare("SELECT 1 FROM spaces WHERE id = ?").get(o.spaceId)) {
    throw new LocalAdminError("not_found", `No space ${o.spaceId} (see \`mediagen local spaces list\`)`);
  }
  const status = o.status ?? "completed";
  const payload = { ...samplePayload(instance, task, status, o.code), ...(o.data ?? {}), task } as WebhookPayload;
  const id = instance.webhooks.enqueue(o.spaceId ?? null, checkUrl(o.to), payload);
  instance.kick();
  return id;
}

/**
 * Sends a recorded delivery again: the same delivery (so the same `webhook-id`, as a retry: a
 * receiver that dedupes by it sees a repeat), its body unchanged, to its URL or `to`. Its status goes back to pending and a new job
 * carries it; its earlier attempts stay in the log.
 */
export function resendWebhook(instance: LocalInstanceApi, deliveryId: string, to?: string): string {
  const row = instance.db.prepare("SELECT id, space_id, url FROM webhook_deliveries WHERE id = ?").get(deliveryId) as
    | { id: string; space_id: string | null; url: string }
    | undefined;
  if (!row) throw new LocalAdminError("not_found", `No webhook delivery ${deliveryId} (see \`mediagen local webhooks\`)`);
  instance.tx(() => {
    instance.db
      .prepare("UPDATE webhook_deliveries SET status = 'pending', delivered_at = NULL, url = ? WHERE id = ?")
      .run(to === undefined ? row.url : checkUrl(to), row.id);
    instance.jobs.enqueue({ kind: "webhook", spaceId: row.space_id, ref: row.id, maxAttempts: WEBHOOK_MAX_ATTEMPTS });
  });
  instance.kick();
  return row.id;
}

/**
 * Sends a recorded delivery's body again as a new delivery (`local webhooks redeliver`, the
 * dashboard's "Send as new"): a new id and so a new `webhook-id` — a receiver sees a new event, not a
 * repeat — to its URL or `to`, through the outbox (webhook fault rules apply). Returns the new id.
 */
export function redeliverWebhook(instance: LocalInstanceApi, deliveryId: string, to?: string): string {
  const row = instance.db.prepare("SELECT space_id, url, payload FROM webhook_deliveries WHERE id = ?").get(deliveryId) as
    | { space_id: string | null; url: string; payload: string }
    | undefined;
  if (!row) throw new LocalAdminError("not_found", `No webhook delivery ${deliveryId} (see \`mediagen local webhooks\`)`);
  const id = instance.webhooks.enqueue(row.space_id, to === undefined ? row.url : checkUrl(to), JSON.parse(row.payload) as WebhookPayload);
  instance.kick();
  return id;
}
