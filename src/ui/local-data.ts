/**
 * What the local-instance page shows, read from the instance: spaces, keys (masked), ledgers,
 * jobs with their steps, webhook deliveries with a signature check, videos, the fault rules, the
 * snapshots and the clock (the emulator's own state: local faults, local snapshot, local clock).
 */
import { verifyStandardWebhook, type SignatureState } from "../cli/webhook-verify.js";
import type { LocalInstance } from "../features/local.js";
import type { KeyView, LedgerEntryView, SpaceView } from "../local/dashboard.js";
import type { ClockState } from "../local/clock.js";
import type { FaultRuleView } from "../local/faults.js";
import type { SnapshotView } from "../local/snapshots.js";
import type { JournalEntry } from "../local/request-journal.js";
import type { JobRow } from "../local/types.js";
import { signWebhook, type WebhookDeliveryView } from "../local/webhooks.js";
import { jobState, type JobState } from "./jobs-state.js";

export interface JobLine {
  row: JobRow;
  /** The record's own step and progress (generation and export jobs). */
  state: JobState | undefined;
}

export interface DeliveryLine {
  delivery: WebhookDeliveryView;
  /** Whether a delivery of this payload is signed now, and whether its signature checks out with the receiver's verifier. */
  signature: SignatureState;
}

export interface LocalData {
  spaces: SpaceView[];
  keys: KeyView[];
  ledgers: { space: SpaceView; entries: LedgerEntryView[] }[];
  jobs: JobLine[];
  deliveries: DeliveryLine[];
  signing: boolean;
  /** The instance's fault rules (local faults), its snapshots and its clock (local clock). */
  faults: readonly FaultRuleView[];
  snapshots: readonly SnapshotView[];
  clock: ClockState;
  /** The newest requests `serve` recorded (local requests), newest first. */
  requests: readonly JournalEntry[];
}

/** Requests shown on the page (the journal keeps 10,000: `local requests`, `GET /_mediagen/requests`). */
const REQUESTS_SHOWN = 100;

const JOBS_SHOWN = 200;
const DELIVERIES_SHOWN = 100;

/** Job kinds of the queue whose `ref` is a record of the same name (with a status, and a step for some). */
const JOB_RECORD: Record<string, "generation" | "export" | "asset" | "look" | undefined> = {
  asset: "asset",
  look: "look",
  generation: "generation",
  export: "export",
};

/** The check a receiver (`mediagen listen`) makes, on this payload signed with the current secret. */
export function signatureOf(secret: string | undefined, d: WebhookDeliveryView, nowMs: number): SignatureState {
  if (!secret) return "unchecked";
  const body = JSON.stringify(d.payload);
  const ts = Math.floor(nowMs / 1000);
  const headers = { "webhook-id": d.webhook_id, "webhook-timestamp": String(ts), "webhook-signature": signWebhook(secret, d.webhook_id, ts, body) };
  return verifyStandardWebhook(secret, headers, body, nowMs).signature;
}

export function localData(instance: LocalInstance): LocalData {
  const spaces = instance.listSpaces();
  const jobs = instance.jobs
    .list()
    .slice(-JOBS_SHOWN)
    .reverse()
    .map((row) => {
      const kind = JOB_RECORD[row.kind];
      return { row, state: kind && row.ref ? jobState(instance.db, kind, row.ref) : undefined };
    });
  const secret = instance.getSetting("webhook_secret");
  const now = instance.clock.now();
  const deliveries = instance
    .webhookDeliveries()
    .slice(-DELIVERIES_SHOWN)
    .reverse()
    .map((delivery) => ({ delivery, signature: signatureOf(secret, delivery, now) }));
  return {
    spaces,
    keys: instance.listKeys(),
    ledgers: spaces.map((space) => ({ space, entries: instance.ledgerEntries(space.id) })),
    jobs,
    deliveries,
    signing: !!secret,
    faults: instance.faults.list(),
    snapshots: instance.listSnapshots(),
    clock: instance.clockState(),
    requests: instance.requests.list({ limit: REQUESTS_SHOWN }).reverse(),
  };
}

/**
 * Sends a delivery again: "resend" the same delivery (the same webhook-id, as `local webhooks resend`:
 * a receiver sees a repeat), "new" its payload as a new delivery (a new webhook-id, as `local webhooks
 * redeliver`). Returns the id of the delivery sent, or undefined when there is no such delivery.
 */
export function resendDelivery(instance: LocalInstance, id: string, how: "resend" | "new" = "resend"): string | undefined {
  if (!instance.webhookDelivery(id)) return undefined;
  return how === "new" ? instance.redeliverWebhook(id) : instance.resendWebhook(id);
}
