/** Webhook bodies as the hosted service sends them (hosted-facts.md): one POST when work ends. */
export const WEBHOOK_TASKS = ["video_generate", "video_export", "avatar_create", "avatar_edit", "asset_generation"] as const;
// The zod schemas are in ./webhook-schemas.ts: the local instance's deliveries must not load zod.
export type { WebhookPayload, WebhookTask } from "./webhook-schemas.js";

/** Header that marks a delivery as coming from the service. */
export const WEBHOOK_MARKER_HEADER = "x-mediagen-webhook";
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_MAX_ATTEMPTS = 3;
/** Backoff before attempt 2 and attempt 3. */
export const WEBHOOK_BACKOFF_MS = [1_000, 2_000] as const;
