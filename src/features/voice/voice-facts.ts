/**
 * What a voice is, wherever it comes from (the built-in catalog, a hosted catalog synced in, a
 * space's own voice): its name, language, accent, gender and tags, and the espeak-ng voice that
 * speaks it. A type only, at the feature's root: the asset feature's catalog sync keeps synced
 * voices in this shape without reaching into the voice emulator (and without an import circle).
 */
export interface VoiceFacts {
  id: string;
  name: string;
  /** Language code (ISO 639-1). */
  language: string;
  accent: string;
  gender: "male" | "female";
  tags: string[];
  /** espeak-ng voice name with variant. */
  tts: string;
}
