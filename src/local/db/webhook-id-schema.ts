/**
 * Migration 11: a delivery's `webhook-id` (Standard Webhooks), kept apart from the delivery's row id.
 * A retry and a resend send the same delivery (the same id); a `webhook_duplicate` fault writes a
 * second delivery of the same message, with the first one's `webhook_id`, so a receiver can tell a
 * repeat from a new event. NULL (rows written before this migration) means the delivery's own id.
 */
export const WEBHOOK_ID_MIGRATION_VERSION = 12;
export const webhookIdColumn = `
ALTER TABLE webhook_deliveries ADD COLUMN webhook_id TEXT;
`;
