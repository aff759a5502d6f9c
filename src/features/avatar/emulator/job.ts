/**
 * The `look` job: renders a prompt-based look (avatar create or edit) and settles it. Success makes
 * the look `ready` with its picture; failure makes it `error`, refunds its credits once, and either
 * way the request's webhook (if any) is told, as hosted-facts.md shapes avatar notifications.
 */
import fs from "node:fs";
import path from "node:path";
import type { JobKind, JobRow, LocalInstanceApi } from "../../../local/types.js";
import { findAvatar, toLook } from "./public/records.js";
import { referenceCacheDir } from "./input.js";
import { simulatedCustomCode } from "../../asset/emulator/public/simulate.js";
import { refundAndNotify } from "../../../local/job-failure.js";

/** The spec: "Asynchronous avatar failures are reported as GENERATION_FAILED through the webhook". */
const WEBHOOK_FAILURE_CODE = "GENERATION_FAILED";

export interface LookJobPayload {
  task: "avatar_create" | "avatar_edit";
  prompt: string;
  style: string | null;
  /** Short text drawn on the picture. */
  label: string;
  width: number;
  height: number;
  /** Media-dir-relative picture of the source look (edit), drawn as the first reference. */
  source: string | null;
  /** Extra images (element images or imageUrls): URLs or local paths, fetched when the job runs. */
  references: string[];
  /** RequestContext.allowPrivateNetwork of the request (absent in jobs queued before it existed: allowed). */
  allowPrivateNetwork?: boolean;
  /** Where the picture goes, relative to the media dir. */
  imageRel: string;
  /** The picture's URL as the request's caller sees it, for the webhook body. */
  thumbnailUrl: string;
  /** X-Local-Simulate of the request: `fail` or `fail:<CODE>` makes the generation fail. */
  simulate: string | null;
}

interface LookState {
  space_id: string;
  avatar_id: string;
  status: string;
  cost_milli: number;
  webhook_url: string | null;
  task: "avatar_create" | "avatar_edit";
}

function lookState(instance: LocalInstanceApi, lookId: string): LookState | undefined {
  return instance.db.prepare(`SELECT space_id, avatar_id, status, cost_milli, webhook_url, task FROM looks WHERE id = ?`).get(lookId) as LookState | undefined;
}

/**
 * Ends a pending look as `error`: refund once, then the failure webhook. A settled look is left alone.
 * `code` is what the status endpoint reports (null: LOOK_GENERATION_FAILED); the webhook always says
 * GENERATION_FAILED, the one code the spec gives asynchronous avatar failures.
 */
export function failLook(instance: LocalInstanceApi, lookId: string, code: string | null, message: string): void {
  const look = lookState(instance, lookId);
  if (look?.status !== "pending") return;
  instance.db
    .prepare(`UPDATE looks SET status = 'error', error_code = ?, error_message = ?, updated_at = ? WHERE id = ? AND status = 'pending'`)
    .run(code, message, instance.nowIso(), lookId);
  refundAndNotify(instance, {
    spaceId: look.space_id,
    costMilli: look.cost_milli,
    ref: lookId,
    note: `${look.task} failed`,
    webhookUrl: look.webhook_url,
    notice: { task: look.task, status: "failed", avatar_id: look.avatar_id, look_id: lookId, error: { code: WEBHOOK_FAILURE_CODE, message } },
  });
}

function completeLook(instance: LocalInstanceApi, lookId: string, p: LookJobPayload): void {
  const look = lookState(instance, lookId);
  if (look?.status !== "pending") return;
  instance.db
    .prepare(`UPDATE looks SET status = 'ready', image_path = ?, width = ?, height = ?, updated_at = ? WHERE id = ? AND status = 'pending'`)
    .run(p.imageRel, p.width, p.height, instance.nowIso(), lookId);
  if (!look.webhook_url) return;
  const view = findAvatar(instance.db, look.space_id, look.avatar_id)?.looks.find((l) => l.id === lookId);
  if (!view) return;
  instance.webhooks.enqueue(look.space_id, look.webhook_url, {
    task: look.task,
    status: "completed",
    avatar_id: look.avatar_id,
    look_id: lookId,
    result: toLook(view, { media: () => p.thumbnailUrl }),
  });
}

function message(e: unknown): string {
  return e instanceof Error ? e.message.split("\n")[0]! : String(e);
}

const lookKind: JobKind = {
  async run(job: JobRow, { instance, signal }) {
    const lookId = job.ref!;
    const p = JSON.parse(job.payload) as LookJobPayload;
    if (p.simulate) {
      // The request validated the header (parseSimulate); `fail:<CODE>` shows its code on the status endpoint.
      const code = simulatedCustomCode(p.simulate) ?? null;
      return { commit: () => failLook(instance, lookId, code, "Look generation failed (simulated)") };
    }
    const [{ renderImage }, { resolveMedia }, { checkImageFile }] = await Promise.all([
      import("../../../media/image.js"),
      import("../../../media/fetch.js"),
      import("../../../media/image-header.js"),
    ]);
    const references: string[] = [];
    if (p.source) references.push(path.join(instance.mediaDir, p.source));
    // A reference that cannot be fetched (or is not a picture within the size limits) will not be
    // usable on a retry either: fail at once, before anything decodes it.
    for (const [i, ref] of p.references.entries()) {
      let file: string;
      try {
        file = await resolveMedia(ref, { cacheDir: referenceCacheDir(instance.home), signal, allowPrivateNetwork: p.allowPrivateNetwork ?? true, prune: true });
      } catch (e) {
        const msg = `Look generation failed: reference image ${i + 1} could not be fetched (${message(e)})`;
        return { commit: () => failLook(instance, lookId, null, msg) };
      }
      try {
        checkImageFile(file, `reference image ${i + 1}`);
      } catch (e) {
        const msg = `Look generation failed: ${message(e)}`;
        return { commit: () => failLook(instance, lookId, null, msg) };
      }
      references.push(file);
    }
    const out = path.join(instance.mediaDir, p.imageRel);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    await renderImage({
      out,
      width: p.width,
      height: p.height,
      prompt: p.style && p.style !== "raw" ? `${p.prompt} (${p.style})` : p.prompt,
      label: p.label,
      references,
      signal,
    });
    return { commit: () => completeLook(instance, lookId, p) };
  },

  giveUp(instance: LocalInstanceApi, job: JobRow, error: string) {
    failLook(instance, job.ref!, null, `Look generation failed: ${error.split("\n")[0]}`);
  },
};

export const lookKinds: Record<string, JobKind> = { look: lookKind };
