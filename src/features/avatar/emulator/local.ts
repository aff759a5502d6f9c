/**
 * Avatar endpoints of the local instance: create (prompt or images), edit, status, get, look, list.
 * Credits are debited in the transaction that creates the pending look and its job; a failed
 * generation is refunded by the look job (kinds/look.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { avatarCredits, avatarEditCredits } from "../../../contract/pricing.js";
import { fromMilli, toMilli } from "../../../contract/credits.js";
import type {
  AvatarCreateRequest,
  AvatarEditRequest,
  AvatarGetRequest,
  AvatarListRequest,
  AvatarLookRequest,
  AvatarStatusRequest,
  AvatarStatusResponse,
  ResourceAvatarsRequest,
} from "../contract.js";
import { ApiError } from "../../../engine/errors.js";
import { ensureCatalogLookImages, type LookTraits } from "./public/catalog.js";
import type { HandlerTable, RequestContext, SpaceRow } from "../../../local/types.js";
import type { LookJobPayload } from "./job.js";
import {
  AVATAR_LIMITS,
  CUSTOM_LOOK_MODELS,
  lookFromPrompt,
  createPlan,
  editPlan,
  lookSize,
  personFromPrompt,
  referenceCacheDir,
  stylePlace,
  titleFrom,
  type CreatePlan,
} from "./input.js";
import { readImageSize } from "./image.js";
import { imageSizeProblem } from "../../../media/image-header.js";
import { checkWebhookAddress } from "../../../local/webhook-address.js";
import { asStoreFault } from "../../../local/store-fault.js";
import { SIMULATE_HEADER, parseSimulate } from "../../asset/emulator/public/simulate.js";
import {
  allLookViews,
  catalogItems,
  findAvatar,
  toAvatar,
  toListItem,
  toLook,
  toLookDetail,
  toResourceAvatar,
  toStatusResult,
  viewOfLookRow,
  type LookRow,
  type LookView,
} from "./public/records.js";
import { localDebug } from "../../../local/debug.js";
import { boolOf, genderOf, listOf, matchesAny, matchesOne } from "../../../local/list-filters.js";

/** Where space looks' pictures live, relative to the media dir. */
export function lookImageRel(lookId: string, ext = ".png"): string {
  return path.posix.join("avatars", `${lookId}${ext}`);
}

function requireSpace(ctx: RequestContext): SpaceRow {
  const row = ctx.instance.db.prepare(`SELECT * FROM spaces WHERE id = ?`).get(ctx.space.id) as SpaceRow | undefined;
  if (!row) throw ApiError.of("SPACE_NOT_FOUND", "Space not found");
  return row;
}

/**
 * Avatars that hold a slot of the plan's cap: those with at least one look that is not `error`. An
 * avatar whose only look failed was refunded, and does not keep a slot for ever.
 */
function countedAvatars(ctx: RequestContext, spaceId: string): number {
  const row = ctx.instance.db
    .prepare(
      `SELECT COUNT(*) AS n FROM avatars a WHERE a.space_id = ?
         AND EXISTS (SELECT 1 FROM looks l WHERE l.avatar_id = a.id AND l.space_id = a.space_id AND l.status <> 'error')`,
    )
    .get(spaceId) as { n: number };
  return row.n;
}

function checkAvatarLimit(ctx: RequestContext, space: SpaceRow): void {
  const n = countedAvatars(ctx, space.id);
  const cap = AVATAR_LIMITS[space.plan];
  if (n >= cap) {
    throw ApiError.of("AVATAR_LIMIT_REACHED", `Avatar limit reached: the ${space.plan} plan allows ${cap} custom avatar(s)`);
  }
}

function debitOrThrow(ctx: RequestContext, spaceId: string, credits: number, ref: string, note: string): void {
  if (ctx.instance.ledger.debit(spaceId, toMilli(credits), ref, note)) return;
  const available = fromMilli(ctx.instance.ledger.balance(spaceId));
  throw ApiError.of("INSUFFICIENT_CREDITS", "Insufficient credits", { required: credits, available });
}

/** Storage failures become the spec's FAILED_TO_PERSIST; the transaction has already rolled back. */
function persist<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ApiError) throw e;
    // A full disk or read-only storage is the instance's 503, as for every other write.
    const fault = asStoreFault(e);
    if (fault) throw fault;
    localDebug(`avatar persist failed: ${String(e)}`);
    throw ApiError.of("FAILED_TO_PERSIST", "Failed to persist the avatar");
  }
}

interface NewLook extends LookTraits {
  id: string;
  avatarId: string;
  task: "avatar_create" | "avatar_edit";
  style: string | null;
  resolution: string | null;
  prompt: string | null;
  sourceLookId: string | null;
  modelAvailable: string[];
  status: "ready" | "pending";
  imagePath: string | null;
  width: number | null;
  height: number | null;
  costMilli: number;
  webhookUrl: string | null;
  tags?: string[];
}

function insertLook(ctx: RequestContext, spaceId: string, l: NewLook): LookRow {
  const now = ctx.instance.nowIso();
  ctx.instance.db
    .prepare(
      `INSERT INTO looks (id, space_id, avatar_id, task, name, place, accessories, action, emotion, selfie, format, style,
         resolution, prompt, source_look_id, model_available, status, image_path, width, height, cost_milli, webhook_url,
         tags, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      l.id,
      spaceId,
      l.avatarId,
      l.task,
      l.name,
      l.place,
      JSON.stringify(l.accessories),
      l.action,
      l.emotion,
      l.selfie ? 1 : 0,
      l.format,
      l.style,
      l.resolution,
      l.prompt,
      l.sourceLookId,
      JSON.stringify(l.modelAvailable),
      l.status,
      l.imagePath,
      l.width,
      l.height,
      l.costMilli,
      l.webhookUrl,
      JSON.stringify(l.tags ?? []),
      now,
      now,
    );
  return ctx.instance.db.prepare(`SELECT * FROM looks WHERE id = ?`).get(l.id) as LookRow;
}

function insertAvatar(
  ctx: RequestContext,
  spaceId: string,
  a: { id: string; name: string; gender: "male" | "female"; age: string; age_range: string; ethnicity: string; hair_color: string },
): void {
  ctx.instance.db
    .prepare(
      `INSERT INTO avatars (id, space_id, name, gender, age, age_range, ethnicity, hair_color, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(a.id, spaceId, a.name, a.gender, a.age, a.age_range, a.ethnicity, a.hair_color, ctx.instance.nowIso());
}

function enqueueLook(ctx: RequestContext, spaceId: string, lookId: string, payload: LookJobPayload): void {
  ctx.instance.jobs.enqueue({ kind: "look", spaceId, ref: lookId, payload: { ...payload, allowPrivateNetwork: ctx.allowPrivateNetwork } });
}

async function avatarCreate(ctx: RequestContext, input: AvatarCreateRequest) {
  const simulate = parseSimulate(ctx.simulate);
  const plan = createPlan(input, { allowLocalFiles: ctx.allowLocalFiles });
  await checkWebhookAddress(ctx, plan.webhookUrl, (why) => ApiError.of("INVALID_VALUE", `webhook_url ${why}`));
  if (plan.kind === "images" && simulate) {
    // Image-based looks are ready in the request itself: no generation exists that could fail later.
    throw ApiError.of("invalid_value", `${SIMULATE_HEADER} does not apply to an image-based avatar create (it starts no generation)`, {
      field: SIMULATE_HEADER,
    });
  }
  const space = requireSpace(ctx);
  checkAvatarLimit(ctx, space);
  return plan.kind === "prompt" ? createFromPrompt(ctx, space, plan, simulate) : createFromImages(ctx, space, plan);
}

function createFromPrompt(ctx: RequestContext, space: SpaceRow, plan: Extract<CreatePlan, { kind: "prompt" }>, simulate: string | undefined) {
  const { instance } = ctx;
  const avatarId = instance.ids.prefixed("av_");
  const lookId = instance.ids.prefixed("lk_");
  const cost = avatarCredits(plan.resolution);
  const person = personFromPrompt(plan.prompt);
  const look = lookFromPrompt(plan.prompt, plan.style, plan.place);
  const size = lookSize(plan.format, plan.resolution);
  // The avatar and its first look both take `name` when given.
  const title = plan.name ?? titleFrom(plan.prompt);
  const imageRel = lookImageRel(lookId);
  const answer = { avatar_id: avatarId, look_id: lookId };
  persist(() =>
    instance.tx(() => {
      requireSpace(ctx);
      checkAvatarLimit(ctx, space);
      debitOrThrow(ctx, space.id, cost, lookId, "avatar create");
      insertAvatar(ctx, space.id, { id: avatarId, name: title, ...person });
      insertLook(ctx, space.id, {
        id: lookId,
        avatarId,
        task: "avatar_create",
        name: title,
        ...look,
        format: plan.format,
        style: plan.style,
        resolution: plan.resolution,
        prompt: plan.prompt,
        sourceLookId: null,
        modelAvailable: CUSTOM_LOOK_MODELS,
        status: "pending",
        imagePath: null,
        width: null,
        height: null,
        costMilli: toMilli(cost),
        webhookUrl: plan.webhookUrl ?? null,
      });
      enqueueLook(ctx, space.id, lookId, {
        task: "avatar_create",
        prompt: plan.prompt,
        style: plan.style,
        label: title,
        width: size.width,
        height: size.height,
        source: null,
        references: plan.elements,
        imageRel,
        thumbnailUrl: ctx.urls.media(imageRel),
        simulate: simulate ?? null,
      });
      ctx.keepStart?.(answer);
    }),
  );
  return answer;
}

/** Fetches one given image into the media dir: not fetchable or not an image is the caller's error. */
async function adoptImage(ctx: RequestContext, ref: string, index: number, lookId: string) {
  const { resolveMedia } = await import("../../../media/fetch.js");
  let local: string;
  try {
    local = await resolveMedia(ref, { cacheDir: referenceCacheDir(ctx.instance.home), allowPrivateNetwork: ctx.allowPrivateNetwork, prune: true });
  } catch (e) {
    throw ApiError.of("INVALID_VALUE", `images[${index}] could not be fetched: ${e instanceof Error ? e.message : String(e)}`);
  }
  let size: ReturnType<typeof readImageSize>;
  try {
    const fd = fs.openSync(local, "r");
    try {
      const head = Buffer.alloc(64 * 1024);
      const n = fs.readSync(fd, head, 0, head.length, 0);
      size = readImageSize(head.subarray(0, n));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    size = undefined;
  }
  if (!size || size.width <= 0 || size.height <= 0) throw ApiError.of("INVALID_VALUE", `images[${index}] is not a PNG, JPEG or WebP image`);
  // Refused here, not at every later render of the look: each would decode it whole.
  const tooLarge = imageSizeProblem(size.width, size.height);
  if (tooLarge) throw ApiError.of("INVALID_VALUE", `images[${index}]: ${tooLarge}`);
  const ext = size.type === "jpeg" ? ".jpg" : `.${size.type}`;
  const rel = lookImageRel(lookId, ext);
  const abs = path.join(ctx.instance.mediaDir, rel);
  try {
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.copyFileSync(local, abs);
  } catch (e) {
    throw asStoreFault(e) ?? ApiError.of("FAILED_TO_PERSIST", "Failed to persist the avatar");
  }
  return { rel, abs, width: size.width, height: size.height };
}

async function createFromImages(ctx: RequestContext, space: SpaceRow, plan: Extract<CreatePlan, { kind: "images" }>) {
  const { instance } = ctx;
  const avatarId = instance.ids.prefixed("av_");
  const lookIds = plan.images.map(() => instance.ids.prefixed("lk_"));
  const answer = { avatar_id: avatarId, look_id: lookIds[0]! };
  const copied: string[] = [];
  try {
    const files: Awaited<ReturnType<typeof adoptImage>>[] = [];
    for (const [i, ref] of plan.images.entries()) {
      const f = await adoptImage(ctx, ref, i, lookIds[i]!);
      copied.push(f.abs);
      files.push(f);
    }
    const name = plan.name ?? `Avatar ${avatarCount(ctx, space.id) + 1}`;
    const person = personFromPrompt(name);
    const look = lookFromPrompt("", plan.style, plan.place);
    persist(() =>
      instance.tx(() => {
        requireSpace(ctx);
        checkAvatarLimit(ctx, space);
        insertAvatar(ctx, space.id, { id: avatarId, name, ...person });
        const rows = files.map((f, i) =>
          insertLook(ctx, space.id, {
            id: lookIds[i]!,
            avatarId,
            task: "avatar_create",
            name: `Image ${i + 1}`,
            ...look,
            format: f.width > f.height ? "horizontal" : "vertical",
            style: plan.style,
            resolution: null,
            prompt: null,
            sourceLookId: null,
            modelAvailable: CUSTOM_LOOK_MODELS,
            status: "ready",
            imagePath: f.rel,
            width: f.width,
            height: f.height,
            costMilli: 0,
            webhookUrl: plan.webhookUrl ?? null,
          }),
        );
        if (plan.webhookUrl) {
          const first = viewOfLookRow({ id: avatarId, name, ...person, created_at: null }, rows[0]!);
          instance.webhooks.enqueue(space.id, plan.webhookUrl, {
            task: "avatar_create",
            status: "completed",
            avatar_id: avatarId,
            look_id: lookIds[0]!,
            result: toLook(first, ctx.urls),
          });
        }
        ctx.keepStart?.(answer);
      }),
    );
  } catch (e) {
    for (const f of copied) fs.rmSync(f, { force: true });
    throw e;
  }
  return answer;
}

function avatarCount(ctx: RequestContext, spaceId: string): number {
  return (ctx.instance.db.prepare(`SELECT COUNT(*) AS n FROM avatars WHERE space_id = ?`).get(spaceId) as { n: number }).n;
}

async function avatarEdit(ctx: RequestContext, input: AvatarEditRequest) {
  const simulate = parseSimulate(ctx.simulate);
  const plan = editPlan(input, { allowLocalFiles: ctx.allowLocalFiles });
  await checkWebhookAddress(ctx, plan.webhookUrl, (why) => ApiError.of("INVALID_WEBHOOK_URL", `webhook_url ${why}`));
  const { instance } = ctx;
  const space = requireSpace(ctx);
  const avatar = findAvatar(instance.db, space.id, plan.avatarId);
  if (!avatar) throw ApiError.of("AVATAR_NOT_FOUND", "Avatar not found");
  const source = avatar.looks.find((l) => l.id === plan.lookId);
  if (!source) throw ApiError.of("LOOK_NOT_FOUND", "Look not found");
  if (!source.imageRel && plan.imageUrls.length === 0) {
    throw ApiError.of("NO_IMAGE_AVAILABLE", "The source look has no image and no imageUrls were given");
  }
  if (source.catalog) await ensureCatalogLookImages(instance.mediaDir, [source.catalog]);
  const lookId = instance.ids.prefixed("lk_");
  const cost = avatarEditCredits(plan.resolution, plan.upscale);
  const size = lookSize(plan.format, plan.resolution);
  const title = plan.lookName ?? titleFrom(plan.prompt);
  const imageRel = lookImageRel(lookId);
  const answer = { avatar_id: plan.avatarId, look_id: lookId };
  persist(() =>
    instance.tx(() => {
      requireSpace(ctx);
      debitOrThrow(ctx, space.id, cost, lookId, "avatar edit");
      insertLook(ctx, space.id, {
        id: lookId,
        avatarId: plan.avatarId,
        task: "avatar_edit",
        name: title,
        place: plan.place ?? stylePlace(plan.style) ?? source.place,
        accessories: source.accessories,
        action: source.action,
        emotion: source.emotion,
        selfie: plan.style === "selfie" ? true : source.selfie,
        format: plan.format,
        style: plan.style ?? null,
        resolution: plan.resolution,
        prompt: plan.prompt,
        sourceLookId: source.id,
        modelAvailable: source.model_available,
        status: "pending",
        imagePath: null,
        width: null,
        height: null,
        costMilli: toMilli(cost),
        webhookUrl: plan.webhookUrl ?? null,
        tags: plan.tags ?? source.tags,
      });
      enqueueLook(ctx, space.id, lookId, {
        task: "avatar_edit",
        prompt: plan.prompt,
        style: plan.style ?? null,
        label: title,
        width: size.width,
        height: size.height,
        source: source.imageRel,
        references: plan.imageUrls,
        imageRel,
        thumbnailUrl: ctx.urls.media(imageRel),
        simulate: simulate ?? null,
      });
      ctx.keepStart?.(answer);
    }),
  );
  return answer;
}

/** The look's job row, newest first: its state tells `pending` (queued) from `processing` (running). */
function lookJobStatus(ctx: RequestContext, lookId: string): string | undefined {
  const row = ctx.instance.db.prepare(`SELECT status FROM jobs WHERE kind = 'look' AND ref = ? ORDER BY created_at DESC, rowid DESC LIMIT 1`).get(lookId) as
    | { status: string }
    | undefined;
  return row?.status;
}

/**
 * Look states → status values: `pending` with its job queued → `pending`; job running →
 * `processing`; `ready` → `completed` (with result); `error` → `failed` (with error).
 */
export function statusOf(look: Pick<LookView, "status">, jobStatus: string | undefined): AvatarStatusResponse["status"] {
  if (look.status === "ready") return "completed";
  if (look.status === "error") return "failed";
  return jobStatus === "running" ? "processing" : "pending";
}

async function avatarStatus(ctx: RequestContext, input: AvatarStatusRequest): Promise<AvatarStatusResponse> {
  const { avatar_id: avatarId, look_id: lookId } = input;
  const space = ctx.instance.db.prepare(`SELECT id FROM spaces WHERE id = ?`).get(ctx.space.id);
  if (!space) throw ApiError.of("SPACE_NOT_FOUND", "Space not found", { shape: "bare" });
  const avatar = findAvatar(ctx.instance.db, ctx.space.id, avatarId);
  if (!avatar) throw ApiError.of("AVATAR_NOT_FOUND", "Avatar not found");
  const look = avatar.looks.find((l) => l.id === lookId);
  if (!look) throw ApiError.of("LOOK_NOT_FOUND", "Look not found", { shape: "bare" });
  const status = statusOf(look, look.row ? lookJobStatus(ctx, look.id) : undefined);
  const out: AvatarStatusResponse = { avatar_id: avatarId, look_id: lookId, status };
  if (status === "completed") {
    if (look.catalog) await ensureCatalogLookImages(ctx.instance.mediaDir, [look.catalog]);
    out.result = toStatusResult(look, ctx.urls);
  }
  if (status === "failed") {
    out.error = { code: look.error_code ?? "LOOK_GENERATION_FAILED", message: look.error_message ?? "Look generation failed" };
  }
  return out;
}

async function avatarGet(ctx: RequestContext, input: AvatarGetRequest) {
  const avatar = findAvatar(ctx.instance.db, ctx.space.id, input.avatar_id);
  if (!avatar) throw ApiError.of("NOT_FOUND", "Avatar not found");
  await ensureCatalogLookImages(ctx.instance.mediaDir, catalogItems(avatar.looks));
  return toAvatar(avatar, ctx.urls);
}

async function avatarLook(ctx: RequestContext, input: AvatarLookRequest) {
  const avatar = findAvatar(ctx.instance.db, ctx.space.id, input.avatar_id);
  if (!avatar) throw ApiError.of("NOT_FOUND", "Avatar not found");
  const look = avatar.looks.find((l) => l.id === input.look_id);
  if (!look) throw ApiError.of("NOT_FOUND", "Look not found");
  await ensureCatalogLookImages(ctx.instance.mediaDir, catalogItems([look]));
  return toLookDetail(look, ctx.urls);
}

/** The list filters of hosted-facts.md (the contract judged their values), as one predicate over look views. */
export function lookFilter(input: AvatarListRequest): { onlyPublic: boolean; test: (v: LookView) => boolean } {
  const gender = genderOf(input.gender);
  const lists = {
    age_range: listOf(input.age_range),
    ethnicity: listOf(input.ethnicity),
    hair_color: listOf(input.hair_color),
    place: listOf(input.place),
    action: listOf(input.action),
    emotion: listOf(input.emotion),
  };
  const accessories = listOf(input.accessories);
  const tags = listOf(input.tags);
  const selfie = boolOf(input.selfie);
  return {
    onlyPublic: boolOf(input.onlyPublic) ?? false,
    test: (v) =>
      v.status === "ready" &&
      (gender === undefined || v.avatar.gender === gender) &&
      matchesOne(lists.age_range, v.avatar.age_range) &&
      matchesOne(lists.ethnicity, v.avatar.ethnicity) &&
      matchesOne(lists.hair_color, v.avatar.hair_color) &&
      matchesOne(lists.place, v.place) &&
      matchesOne(lists.action, v.action) &&
      matchesOne(lists.emotion, v.emotion) &&
      matchesAny(accessories, v.accessories) &&
      matchesAny(tags, v.tags) &&
      (selfie === undefined || v.selfie === selfie),
  };
}

async function avatarList(ctx: RequestContext, input: AvatarListRequest) {
  const filter = lookFilter(input);
  const views = allLookViews(ctx.instance.db, ctx.space.id, filter.onlyPublic).filter(filter.test);
  await ensureCatalogLookImages(ctx.instance.mediaDir, catalogItems(views));
  return views.map((v) => toListItem(v, ctx.urls));
}

/** The legacy listing: every ready look of the space and the catalog, by `gender` and any of `tags`. */
async function resourceAvatars(ctx: RequestContext, input: ResourceAvatarsRequest) {
  const gender = genderOf(input.gender);
  const tags = listOf(input.tags);
  const views = allLookViews(ctx.instance.db, ctx.space.id, false).filter(
    (v) => v.status === "ready" && (gender === undefined || v.avatar.gender === gender) && matchesAny(tags, v.tags),
  );
  await ensureCatalogLookImages(ctx.instance.mediaDir, catalogItems(views));
  return views.map((v) => toResourceAvatar(v, ctx.urls));
}

/** Each takes the request the contract accepted (dispatch parsed it: src/local/service.ts). */
export const avatarHandlers: HandlerTable = {
  avatarCreate: (ctx, input) => avatarCreate(ctx, input as AvatarCreateRequest),
  avatarEdit: (ctx, input) => avatarEdit(ctx, input as AvatarEditRequest),
  avatarStatus: (ctx, input) => avatarStatus(ctx, input as AvatarStatusRequest),
  avatarGet: (ctx, input) => avatarGet(ctx, input as AvatarGetRequest),
  avatarLook: (ctx, input) => avatarLook(ctx, input as AvatarLookRequest),
  avatarList: (ctx, input) => avatarList(ctx, (input ?? {}) as AvatarListRequest),
  resourceAvatars: (ctx, input) => resourceAvatars(ctx, (input ?? {}) as ResourceAvatarsRequest),
};
