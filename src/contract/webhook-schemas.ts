/** The zod schemas of webhook payloads (the constants are in ./webhook.ts). */
import { z } from "zod";
import { WEBHOOK_TASKS } from "./webhook.js";

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
