import { z } from "zod";

/** Webhook bodies as the hosted service sends them (hosted-facts.md): one POST when work ends. */
export const WEBHOOK_TASKS = ["video_generate", "video_export", "avatar_create", "avatar_edit", "asset_generation"] as const;
export const WebhookTask = z.enum(WEBHOOK_TASKS);
export type WebhookTask = z.infer<typeof WebhookTask>;

export const WebhookPayload = z.looseObject({
  task: WebhookTask,
  status: z.enum(["completed", "failed"]),
  job_id: z.string().optional(),
  asset_id: z.string().optional(),
  avatar_id: z.string().optional(),
  look_id: z.string().optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
});
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** Header that marks a delivery as coming from the service. */
export const WEBHOOK_MARKER_HEADER = "x-mediagen-webhook";
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_MAX_ATTEMPTS = 3;
/** Backoff before attempt 2 and attempt 3. */
export const WEBHOOK_BACKOFF_MS = [1_000, 2_000] as const;
