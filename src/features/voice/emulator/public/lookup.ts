/**
 * The voices a space can use, for the voice endpoints and for other parts of the instance
 * (generation resolves a `voice_id` to an espeak-ng voice here), and the way a custom voice is added.
 */
import path from "node:path";
import type { Plan } from "../../../../contract/plans.js";
import { voiceTiersFor } from "../../../../contract/plans.js";
import { CATALOG_VOICES, catalogVoicePreviewRelPath, ensureVoicePreview, type VoiceFacts } from "../catalog.js";
import { eachLimited } from "../../../../local/media-cache.js";
import { syncedVoicesOf } from "../../../asset/emulator/public/catalog-sync.js";
import type { DB, LocalInstanceApi } from "../../../../local/types.js";

export interface SpaceVoiceRow {
  seq: number;
  id: string;
  space_id: string;
  name: string;
  language: string;
  accent: string;
  gender: "male" | "female";
  tags: string;
  tts_voice: string;
  preview_path: string | null;
  created_at: string;
}

export type { VoiceFacts } from "../catalog.js";

/** One voice as the instance knows it, space or catalog. */
export interface VoiceView extends VoiceFacts {
  source: "space" | "config";
  /** Media-dir-relative preview sample. */
  previewRel: string;
}

function view(v: VoiceFacts, source: VoiceView["source"], previewRel: string): VoiceView {
  return { id: v.id, name: v.name, language: v.language, accent: v.accent, gender: v.gender, tags: [...v.tags], source, tts: v.tts, previewRel };
}

function viewOfRow(r: SpaceVoiceRow): VoiceView {
  return view({ ...r, tags: JSON.parse(r.tags) as string[], tts: r.tts_voice }, "space", r.preview_path ?? spaceVoicePreviewRel(r.id));
}

/** A public voice: the built-in catalog's, or one synced from the hosted service. */
function viewOfCatalog(v: VoiceFacts): VoiceView {
  return view(v, "config", catalogVoicePreviewRelPath(v.id));
}

export function spaceVoicePreviewRel(voiceId: string): string {
  return path.posix.join("voices", `${voiceId}.wav`);
}

/** Space voices first (oldest first), then the catalog voices the plan's tier unlocks. */
export function voicesFor(db: DB, spaceId: string, plan: Plan, opts: { onlyPublic?: boolean } = {}): VoiceView[] {
  const own = opts.onlyPublic ? [] : (db.prepare(`SELECT * FROM voices WHERE space_id = ? ORDER BY seq`).all(spaceId) as SpaceVoiceRow[]).map(viewOfRow);
  // Public voices synced from the hosted service (`local catalog sync --voices`) replace the built-in
  // ones; the hosted list was already the syncing plan's, so every plan sees them.
  const synced = syncedVoicesOf(db);
  if (synced) return [...own, ...synced.map(viewOfCatalog)];
  const tiers = new Set<string>(voiceTiersFor(plan));
  return [...own, ...CATALOG_VOICES.filter((v) => tiers.has(v.tier)).map(viewOfCatalog)];
}

/** A voice the space may use (its own, or a catalog voice of its tier), or undefined. */
export function findVoice(db: DB, spaceId: string, plan: Plan, voiceId: string): VoiceView | undefined {
  const row = db.prepare(`SELECT * FROM voices WHERE id = ? AND space_id = ?`).get(voiceId, spaceId) as SpaceVoiceRow | undefined;
  if (row) return viewOfRow(row);
  return voicesFor(db, spaceId, plan, { onlyPublic: true }).find((v) => v.id === voiceId);
}

/** Makes sure the preview samples of these voices exist (made with the local TTS on first need). */
export async function ensurePreviews(instance: LocalInstanceApi, voices: readonly VoiceView[]): Promise<void> {
  await eachLimited(voices, 2, (v) => ensureVoicePreview(path.join(instance.mediaDir, v.previewRel), { name: v.name, language: v.language, tts: v.tts }));
}

export interface NewSpaceVoice {
  name: string;
  language: string;
  accent?: string;
  gender: "male" | "female";
  tags?: string[];
  /** espeak-ng voice (e.g. `en-us+f3`). */
  tts: string;
}

/**
 * Adds a custom voice to a space (the hosted service's uploaded voices; locally, an espeak-ng voice
 * with a name). Its preview is synthesised before the row is written, so a listed voice always has one.
 */
export async function addSpaceVoice(instance: LocalInstanceApi, spaceId: string, v: NewSpaceVoice): Promise<VoiceView> {
  const id = instance.ids.prefixed("vc_");
  const rel = spaceVoicePreviewRel(id);
  await ensureVoicePreview(path.join(instance.mediaDir, rel), { name: v.name, language: v.language, tts: v.tts });
  instance.tx(() => {
    instance.db
      .prepare(
        `INSERT INTO voices (id, space_id, name, language, accent, gender, tags, tts_voice, preview_path, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, spaceId, v.name, v.language, v.accent ?? "", v.gender, JSON.stringify(v.tags ?? []), v.tts, rel, instance.nowIso());
  });
  const row = instance.db.prepare(`SELECT * FROM voices WHERE id = ?`).get(id) as SpaceVoiceRow;
  return viewOfRow(row);
}
