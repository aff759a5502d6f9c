/**
 * `--language` as people write it: a code or tag (`fr`, `fr-FR`, `pt_BR`) is sent as typed; a name
 * (`French`, `français`) becomes its ISO 639-1 code, the code the service filters on. Plain data (no
 * zod): the flag is parsed before `--help` could load anything heavy.
 */
import { CliError, EXIT } from "../../../cli/types.js";

/** ISO 639-1 codes with their English and native names (the languages TTS services commonly offer). */
export const LANGUAGES: Record<string, readonly string[]> = {
  ar: ["arabic", "العربية"],
  bg: ["bulgarian", "български"],
  bn: ["bengali", "bangla", "বাংলা"],
  ca: ["catalan", "català"],
  cs: ["czech", "čeština", "cestina"],
  da: ["danish", "dansk"],
  de: ["german", "deutsch"],
  el: ["greek", "ελληνικά"],
  en: ["english"],
  es: ["spanish", "español", "espanol", "castellano"],
  et: ["estonian", "eesti"],
  fa: ["persian", "farsi", "فارسی"],
  fi: ["finnish", "suomi"],
  fil: ["filipino", "tagalog"],
  fr: ["french", "français", "francais"],
  he: ["hebrew", "עברית"],
  hi: ["hindi", "हिन्दी"],
  hr: ["croatian", "hrvatski"],
  hu: ["hungarian", "magyar"],
  id: ["indonesian", "bahasa indonesia"],
  it: ["italian", "italiano"],
  ja: ["japanese", "日本語"],
  ko: ["korean", "한국어"],
  lt: ["lithuanian", "lietuvių"],
  lv: ["latvian", "latviešu"],
  ms: ["malay", "bahasa melayu"],
  nl: ["dutch", "nederlands", "flemish"],
  no: ["norwegian", "norsk", "bokmål"],
  pl: ["polish", "polski"],
  pt: ["portuguese", "português", "portugues"],
  ro: ["romanian", "română", "romana"],
  ru: ["russian", "русский"],
  sk: ["slovak", "slovenčina"],
  sl: ["slovenian", "slovene", "slovenščina"],
  sr: ["serbian", "српски", "srpski"],
  sv: ["swedish", "svenska"],
  sw: ["swahili", "kiswahili"],
  ta: ["tamil", "தமிழ்"],
  th: ["thai", "ไทย"],
  tr: ["turkish", "türkçe", "turkce"],
  uk: ["ukrainian", "українська"],
  ur: ["urdu", "اردو"],
  vi: ["vietnamese", "tiếng việt"],
  zh: ["chinese", "mandarin", "中文"],
};

const BY_NAME = new Map(Object.entries(LANGUAGES).flatMap(([code, names]) => names.map((n) => [n, code] as const)));
/** A language tag: `fr`, `fr-FR`, `pt_BR`, `zh-Hant-TW`, `fil`. */
const TAG = /^([a-z]{2,3})(?:[-_][a-z0-9]{1,8})*$/i;

/** One language as written → its code; undefined when it is neither a tag nor a known name. */
export function languageCode(value: string): string | undefined {
  const v = value.trim();
  const tag = TAG.exec(v);
  if (tag) return tag[1]!.toLowerCase();
  return BY_NAME.get(v.toLowerCase());
}

/**
 * `--language pt-BR` → `pt-BR` (a tag is sent as typed: the service, or the local instance, says
 * what it matches it to), `--language German` → `de` (a name becomes its code); anything else is a
 * usage error that lists the codes.
 */
export function parseLanguages(value: string, flag = "--language"): string {
  const out: string[] = [];
  for (const part of value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const code = TAG.test(part) ? part : languageCode(part);
    if (!code) {
      throw new CliError(
        `${flag}: "${part}" is not a language; use a code such as ${Object.keys(LANGUAGES).join(", ")} (a tag like fr-FR or a name like French works too)`,
        EXIT.usage,
        "invalid_value",
        flag,
      );
    }
    if (!out.includes(code)) out.push(code);
  }
  if (!out.length) throw new CliError(`${flag}: expected a language code, e.g. en or fr`, EXIT.usage, "invalid_value", flag);
  return out.join(",");
}
