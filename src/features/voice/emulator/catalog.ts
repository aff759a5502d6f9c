import path from "node:path";
import type { VoiceTier } from "../../../contract/plans.js";
import { ensureFile, eachLimited } from "../../../local/media-cache.js";

/**
 * The public voice catalog of the local instance. Every voice is a real espeak-ng voice (`tts`,
 * with a variant for the timbre), so generation and the preview sample speak with it. `tier` is the
 * plan tier that unlocks it (GET /voice/list: Free sees free voices, Start adds start, and so on).
 */
import type { VoiceFacts } from "../voice-facts.js";

export type { VoiceFacts };

/** A voice of the built-in catalog, and the plan tier that unlocks it. */
export interface CatalogVoice extends VoiceFacts {
  tier: VoiceTier;
}

function voice(id: string, name: string, language: string, accent: string, gender: "male" | "female", tier: VoiceTier, tts: string, tags: string[]): CatalogVoice {
  return { id, name, language, accent, gender, tier, tts, tags };
}

export const CATALOG_VOICES: readonly CatalogVoice[] = [
  voice("vc_emma", "Emma", "en", "American", "female", "free", "en-us+f3", ["narration", "warm"]),
  voice("vc_noah", "Noah", "en", "American", "male", "free", "en-us+m3", ["narration", "calm"]),
  voice("vc_olivia", "Olivia", "en", "British", "female", "start", "en-gb+f2", ["professional", "news"]),
  voice("vc_george", "George", "en", "British", "male", "pro", "en-gb+m1", ["storytelling", "deep"]),
  voice("vc_fiona", "Fiona", "en", "Scottish", "female", "pro", "en-gb-scotland+f4", ["friendly", "conversational"]),
  voice("vc_marcus", "Marcus", "en", "Caribbean", "male", "enterprise", "en-029+m2", ["energetic", "ads"]),
  voice("vc_camille", "Camille", "fr", "Parisian", "female", "free", "fr+f2", ["narration", "elegant"]),
  voice("vc_louis", "Louis", "fr", "Parisian", "male", "start", "fr+m1", ["news", "professional"]),
  voice("vc_lea", "Léa", "fr", "Belgian", "female", "pro", "fr-be+f3", ["friendly", "conversational"]),
  voice("vc_hannah", "Hannah", "de", "Standard German", "female", "free", "de+f2", ["professional", "calm"]),
  voice("vc_lukas", "Lukas", "de", "Standard German", "male", "start", "de+m3", ["narration", "deep"]),
  voice("vc_sofia", "Sofía", "es", "Castilian", "female", "free", "es+f3", ["energetic", "ads"]),
  voice("vc_mateo", "Mateo", "es", "Latin American", "male", "pro", "es-419+m2", ["conversational", "friendly"]),
  voice("vc_valentina", "Valentina", "es", "Latin American", "female", "enterprise", "es-419+f1", ["storytelling", "warm"]),
  voice("vc_ana", "Ana", "pt", "Brazilian", "female", "start", "pt-br+f2", ["friendly", "ads"]),
  voice("vc_joao", "João", "pt", "European", "male", "enterprise", "pt+m1", ["calm", "narration"]),
  voice("vc_giulia", "Giulia", "it", "Italian", "female", "pro", "it+f3", ["warm", "storytelling"]),
  voice("vc_luca", "Luca", "it", "Italian", "male", "enterprise", "it+m2", ["energetic", "ads"]),
];

const byId = new Map(CATALOG_VOICES.map((v) => [v.id, v]));

export function catalogVoice(id: string): CatalogVoice | undefined {
  return byId.get(id);
}

const SAMPLE: Record<string, (name: string) => string> = {
  en: (n) => `Hello, I'm ${n}. This is how I sound when I read your script.`,
  fr: (n) => `Bonjour, je suis ${n}. Voici ma voix pour vos vidéos.`,
  de: (n) => `Hallo, ich bin ${n}. So klingt meine Stimme in Ihren Videos.`,
  es: (n) => `Hola, soy ${n}. Así suena mi voz en tus vídeos.`,
  pt: (n) => `Olá, eu sou ${n}. É assim que a minha voz soa nos seus vídeos.`,
  it: (n) => `Ciao, sono ${n}. Ecco come suona la mia voce nei tuoi video.`,
};

/** The sentence a voice's preview sample says, in the voice's language. */
export function previewText(name: string, language: string): string {
  return (SAMPLE[language] ?? SAMPLE.en!)(name);
}

const CATALOG_MEDIA_VERSION = "v1";

/** Path of a catalog voice's preview, relative to the media dir. */
export function catalogVoicePreviewRelPath(voiceId: string): string {
  return path.posix.join("catalog", CATALOG_MEDIA_VERSION, "voices", `${voiceId}.wav`);
}

/** Synthesises the preview of a voice into `absOut` (WAV) unless it exists. */
export async function ensureVoicePreview(absOut: string, v: { name: string; language: string; tts: string }): Promise<void> {
  const { synthesize } = await import("../../../media/tts.js");
  await ensureFile(absOut, async (tmp) => {
    await synthesize({ text: previewText(v.name, v.language), out: tmp, voice: v.tts });
  });
}

/** Makes the previews of these catalog voices that do not exist yet. */
export async function ensureCatalogVoicePreviews(mediaDir: string, voices: readonly CatalogVoice[]): Promise<void> {
  await eachLimited(voices, 2, (v) => ensureVoicePreview(path.join(mediaDir, catalogVoicePreviewRelPath(v.id)), v));
}
