/**
 * `generate --prompt … --avatar <look>` without a voice: rather than the service's default voice (a
 * female English one, whatever the look), a voice of the look's gender in the prompt's language is
 * picked, and said, so a senior man does not speak with a young woman's voice unannounced.
 */
import type { LookItem, VoiceItem } from "./names.js";

/** A few of the most common words of each language the catalog voices speak. */
const COMMON_WORDS: Record<string, readonly string[]> = {
  en: ["the", "and", "is", "of", "to", "a", "in", "how", "why", "what", "for", "with", "your"],
  fr: ["le", "la", "les", "et", "est", "des", "un", "une", "pour", "avec", "comment", "pourquoi", "du", "dans"],
  de: ["der", "die", "das", "und", "ist", "ein", "eine", "mit", "für", "wie", "warum", "nicht", "im"],
  es: ["el", "los", "las", "y", "es", "un", "una", "para", "con", "cómo", "por", "qué", "del"],
  pt: ["o", "os", "as", "e", "é", "um", "uma", "para", "com", "como", "por", "que", "não", "do"],
  it: ["il", "lo", "gli", "e", "è", "un", "una", "per", "con", "come", "perché", "che", "della"],
};

/** The language a text is most likely in, among those given (by common words); the first when unsure. */
export function guessLanguage(text: string, among: readonly string[]): string | undefined {
  return textLanguage(text, among) ?? (among.includes("en") ? "en" : among[0]);
}

/** The language a text's common words say, among those given; undefined when none of its words tell. */
export function textLanguage(text: string, among: readonly string[]): string | undefined {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter(Boolean);
  let best: string | undefined;
  let score = 0;
  for (const lang of among) {
    const common = COMMON_WORDS[lang];
    if (!common) continue;
    const n = words.filter((w) => common.includes(w)).length;
    if (n > score) [best, score] = [lang, n];
  }
  return best;
}

export interface VoicePick {
  voice: VoiceItem;
  why: string;
}

/** The voice for `look` speaking `text`: its gender, the text's language; undefined when none fits. */
export function voiceForLook(look: LookItem, text: string, voices: readonly VoiceItem[]): VoicePick | undefined {
  const languages = [...new Set(voices.map((v) => v.language).filter((l): l is string => !!l))];
  const language = guessLanguage(text, languages);
  const sameGender = voices.filter((v) => !look.gender || v.gender === look.gender);
  const voice = sameGender.find((v) => v.language === language) ?? sameGender[0];
  if (!voice) return undefined;
  const lang = voice.language === language ? ` ${language}` : "";
  return { voice, why: `a ${look.gender ?? ""}${lang} voice for ${look.look_name ?? look.id}${look.gender ? ` (${look.gender})` : ""}`.replace(/ +/g, " ") };
}
