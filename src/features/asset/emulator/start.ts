/**
 * Starting assets on the local instance: validation (references, sources, the model's rules), then the
 * debit and the queued generations in one IMMEDIATE transaction, so concurrent starts can neither
 * overspend nor lose a generation. Loaded by the first assetStart (src/features/asset/emulator/local.ts): the
 * reference checks reach the media layer, which the other asset endpoints never need.
 */
import fs from "node:fs";
import path from "node:path";
import { fromMilli } from "../../../contract/credits.js";
import { ApiError } from "../../../engine/errors.js";
import { priceMilli } from "./catalog/pricing.js";
import { catalogOf } from "./public/catalog-sync.js";
import type { RequestContext } from "../../../local/types.js";
import { avatarThumbnailPath } from "../../avatar/emulator/public/lookup.js";
import { extensionFor } from "./names.js";
import { readAsset, type RenderParams } from "./public/record.js";
import type { LibraryAsset, StartLookups } from "./public/refs.js";
import { parseSimulate } from "./public/simulate.js";
import { followedSource, plannedOutput, type SourceInfo } from "./render-plan.js";
import { checkPricedSourceLength, probeSource } from "./source.js";
import { removeQuietly } from "../../../media/atomic.js";
import { localImageProblem } from "../../../media/image-header.js";
import { checkWebhookAddress } from "../../../local/webhook-address.js";
import { priceParamsOf, validateStart } from "./validate.js";
import type { AssetStartInput } from "../contract.js";

/** Signed media URLs in webhooks stay valid as long as export downloads (7 days). */
const WEBHOOK_URL_TTL_SECONDS = 7 * 24 * 3600;
/** A render that dies with its worker is tried again before the asset is failed and refunded. */
const ASSET_JOB_ATTEMPTS = 3;

export function startLookups(ctx: RequestContext): StartLookups {
  const { instance, space } = ctx;
  return {
    asset(id: string): LibraryAsset | undefined {
      const row = readAsset(instance.db, space.id, id);
      if (!row) return undefined;
      return {
        id: row.id,
        type: row.type,
        status: row.status,
        file: row.status === "completed" ? path.join(instance.mediaDir, row.file_path) : null,
        width: row.width,
        height: row.height,
        duration_seconds: row.duration_seconds,
        folder_id: row.folder_id,
      };
    },
    avatarThumbnail: (avatarId) => avatarThumbnailPath(instance, space.id, avatarId),
    folder: (id) => instance.db.prepare("SELECT type FROM folders WHERE id = ? AND space_id = ?").get(id, space.id) as { type: string } | undefined,
    fileExists: (p) => {
      try {
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    },
    imageProblem: localImageProblem,
    cwd: process.cwd(),
    allowLocalFiles: ctx.allowLocalFiles,
    model: catalogOf(instance).find,
  };
}

export async function startAssets(ctx: RequestContext, input: AssetStartInput) {
  const simulate = parseSimulate(ctx.simulate);
  const v = validateStart(input, ctx.space.plan, startLookups(ctx));
  await checkWebhookAddress(ctx, v.webhookUrl, (why) => ApiError.of("invalid_value", `webhook_url ${why}`, { field: "webhook_url" }));
  const followed = followedSource(v.model.render, v);
  const field = v.model.render === "motion" ? "motion_video" : "source_video";
  // A space that cannot pay is refused before a source is fetched (a refused request fetches nothing).
  if (followed) checkCreditsBeforeFetch(ctx, v);
  const source = followed ? await probeSource(ctx.instance, followed, field, ctx.allowPrivateNetwork) : undefined;
  try {
    return createAssets(ctx, v, simulate, source);
  } catch (e) {
    // A refused request keeps nothing it fetched (a space without credits must not fill the disk).
    if (source?.downloaded) removeQuietly(source.downloaded);
    throw e;
  }
}

function shortage(ctx: RequestContext, totalMilli: number): ApiError {
  const available = fromMilli(ctx.instance.ledger.balance(ctx.space.id));
  return ApiError.of("not_eligible", `Insufficient credits: ${fromMilli(totalMilli)} required, ${available} available`, { status: 402 });
}

/**
 * The least this start can cost, checked against the balance before a source is fetched: exact for
 * every price but one by the source's length, which is taken at its least (one second) until the
 * source is measured. The transaction that debits checks the balance again.
 */
function checkCreditsBeforeFetch(ctx: RequestContext, v: ReturnType<typeof validateStart>): void {
  const least = { ...priceParamsOf(v), sourceSeconds: v.sourceSeconds ?? 1 };
  const totalMilli = priceMilli(v.model, least) * v.generationCount;
  if (ctx.instance.ledger.balance(ctx.space.id) < totalMilli) throw shortage(ctx, totalMilli);
}

function createAssets(ctx: RequestContext, v: ReturnType<typeof validateStart>, simulate: ReturnType<typeof parseSimulate>, source: SourceInfo | undefined) {
  const { instance, space } = ctx;
  if (source && v.model.pricing.kind === "per_source_second") {
    const field = v.model.render === "motion" ? "motion_video" : "source_video";
    checkPricedSourceLength(source, field);
    v.sourceSeconds = source.durationSeconds;
  }
  const perMilli = priceMilli(v.model, priceParamsOf(v));
  const totalMilli = perMilli * v.generationCount;
  const out = plannedOutput(v.type, v.model.render, v, source);
  const ext = extensionFor(v.type);
  const refs = v.references.length > 0 ? JSON.stringify(v.references.map((r) => r.item)) : null;

  const insert = instance.db.prepare(
    `INSERT INTO assets (id, space_id, type, model, status, prompt, aspect_ratio, resolution, duration, refs, params,
       cost_milli, file_name, folder_id, parent_media_id, webhook_url, simulate, file_path, thumbnail_path,
       width, height, duration_seconds, created_at)
     VALUES (@id, @space_id, @type, @model, 'generating', @prompt, @aspect_ratio, @resolution, @duration, @refs, @params,
       @cost_milli, @file_name, @folder_id, @parent_media_id, @webhook_url, @simulate, @file_path, @thumbnail_path,
       @width, @height, @duration_seconds, @created_at)`,
  );

  return instance.tx(() => {
    if (instance.ledger.balance(space.id) < totalMilli) throw shortage(ctx, totalMilli);
    const ids: string[] = [];
    const createdAt = instance.nowIso();
    for (let i = 0; i < v.generationCount; i++) {
      const id = instance.ids.hex24();
      const dir = `assets/${id}`;
      const filePath = `${dir}/${v.fileName}.${ext}`;
      const thumbPath = v.type === "video" ? `${dir}/${v.fileName}.jpg` : null;
      const params: RenderParams = {
        render: v.model.render,
        audio: v.audio,
        settings: v.settings,
        references: v.references,
        slots: v.slots,
        elements: v.elements,
        avatarDescription: v.avatarDescription,
        allowPrivateNetwork: ctx.allowPrivateNetwork,
        urls: {
          media: ctx.urls.media(filePath, WEBHOOK_URL_TTL_SECONDS),
          thumbnail: thumbPath ? ctx.urls.media(thumbPath, WEBHOOK_URL_TTL_SECONDS) : null,
        },
      };
      insert.run({
        id,
        space_id: space.id,
        type: v.type,
        model: v.model.name,
        prompt: v.prompt,
        aspect_ratio: out.aspectRatio,
        resolution: out.resolution,
        duration: out.duration,
        refs,
        params: JSON.stringify(params),
        cost_milli: perMilli,
        file_name: v.fileName,
        folder_id: v.folderId,
        parent_media_id: v.parentMediaId,
        webhook_url: v.webhookUrl,
        simulate: simulate ?? null,
        file_path: filePath,
        thumbnail_path: thumbPath,
        width: out.width,
        height: out.height,
        duration_seconds: out.durationSeconds,
        created_at: createdAt,
      });
      if (!instance.ledger.debit(space.id, perMilli, id, `asset ${v.model.name}`)) throw shortage(ctx, totalMilli);
      instance.jobs.enqueue({ kind: "asset", spaceId: space.id, ref: id, payload: { asset_id: id }, maxAttempts: ASSET_JOB_ATTEMPTS });
      ids.push(id);
    }
    const answer = {
      asset_ids: ids,
      status: "generating" as const,
      count: ids.length,
      cost_per_generation: fromMilli(perMilli),
      total_cost: fromMilli(totalMilli),
    };
    ctx.keepStart?.(answer);
    return answer;
  });
}
