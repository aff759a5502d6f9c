/**
 * Beyond the hosted service: a script written by a language model on this machine. When
 * `MEDIAGEN_LOCAL_LLM_URL` names an OpenAI-compatible server (llama.cpp's server, Ollama, LM Studio,
 * vLLM…), the writer asks its chat completions endpoint; any failure (unreachable, timeout, an
 * answer that is not a usable script) falls back to the extractive writer. Never required.
 */
import { readEnv, type Env } from "../../../config/env.js";
import { displayUrl } from "../../../media/fetch.js";
import { mediagenVersion } from "../../../local/version.js";
import { collapse, countWords, ensureTerminal, splitLong, splitSentences } from "./text.js";
import { MAX_SENTENCE_WORDS, WORDS_PER_SECOND, type WriterMaterial } from "./writer.js";

export const LLM_TIMEOUT_MS = 30_000;
/** Source text sent along with the prompt, at most (a local model's context is small). */
const SOURCE_WORDS_MAX = 1_500;

export interface LlmConfig {
  /** The chat completions URL. */
  url: string;
  model: string | undefined;
  timeoutMs: number;
}

/** `{url}/chat/completions`, or the URL itself when it already names that endpoint. */
export function chatCompletionsUrl(raw: string): string {
  const u = new URL(raw.trim());
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new TypeError(`MEDIAGEN_LOCAL_LLM_URL must be an http(s) URL, got ${u.protocol}`);
  if (/\/chat\/completions\/?$/.test(u.pathname)) return u.href;
  u.pathname = `${u.pathname.replace(/\/+$/, "")}/chat/completions`;
  return u.href;
}

/**
 * The configuration from the environment, or undefined when no model is configured.
 * `MEDIAGEN_LOCAL_LLM_URL` (required), `MEDIAGEN_LOCAL_LLM_MODEL` (optional: sent as `model` when
 * set), `MEDIAGEN_LOCAL_LLM_TIMEOUT_MS` (optional, default 30 000). Throws on a malformed URL.
 */
export function llmConfigFrom(env?: Env): LlmConfig | undefined {
  const raw = readEnv("MEDIAGEN_LOCAL_LLM_URL", env)?.trim();
  if (!raw) return undefined;
  const model = readEnv("MEDIAGEN_LOCAL_LLM_MODEL", env)?.trim() || undefined;
  return { url: chatCompletionsUrl(raw), model, timeoutMs: readEnv("MEDIAGEN_LOCAL_LLM_TIMEOUT_MS", env) ?? LLM_TIMEOUT_MS };
}

export class LlmError extends Error {
  override readonly name = "LlmError";
}

export interface LlmBrief {
  prompt: string;
  duration: number;
  targetWords: number;
  material: WriterMaterial;
  /** Page titles and URLs, in request order, for the sources block. */
  pages: readonly { url: string; title: string | undefined }[];
}

/** The messages sent to the model. */
export function llmMessages(b: LlmBrief): { role: "system" | "user"; content: string }[] {
  const system = [
    "You write voice-over scripts for short videos.",
    "Answer with the words to be spoken and nothing else: no title, no headings, no lists, no markdown, no stage directions, no speaker names, no emojis.",
    "Every sentence ends with a period, a question mark or an exclamation mark.",
    `The script is read aloud at about ${WORDS_PER_SECOND} words per second, so write about ${b.targetWords} words for ${b.duration} seconds.`,
    "Write in the language of the request.",
  ].join(" ");
  const parts = [`Request: ${b.prompt.trim()}`, `Length: about ${b.targetWords} words (${b.duration} seconds).`];
  let budget = SOURCE_WORDS_MAX;
  b.material.pageSentences.forEach((sentences, i) => {
    const taken: string[] = [];
    for (const s of sentences) {
      const n = countWords(s);
      if (n > budget) break;
      taken.push(s);
      budget -= n;
    }
    if (!taken.length) return;
    const page = b.pages[i];
    parts.push(`Source ${i + 1}${page ? ` (${page.title ? `${page.title}, ` : ""}${page.url})` : ""}:\n${taken.join(" ")}`);
  });
  if (parts.length > 2) parts.push("Use the sources for facts; do not mention them or their URLs.");
  return [
    { role: "system", content: system },
    { role: "user", content: parts.join("\n\n") },
  ];
}

/**
 * The model's answer as a script: reasoning blocks, markdown, headings, list marks, speaker labels
 * and bracketed directions removed; every sentence ended with punctuation and cut at 32 words; paragraphs kept.
 * Over 120 % of the target it is cut after the sentence closest to the target.
 */
export function cleanLlmScript(text: string, target: number): string {
  const body = text
    .replace(/<think>[\s\S]*?<\/think>/gi, "")
    .replace(/```[a-z]*\n?|```/gi, "")
    .replace(/\r\n?/g, "\n");
  const paragraphs: string[][] = [];
  for (const para of body.split(/\n\s*\n/)) {
    const lines = para
      .split("\n")
      .map((l) =>
        l
          .replace(/^\s*#{1,6}\s+.*$/, "") // headings
          .replace(/^\s*(?:title|script|voice-?over|narrator|speaker|host)\s*(?:\d+)?\s*:\s*$/i, "")
          .replace(/^\s*(?:[-*•]|\d+[.)])\s+/, "") // list marks
          .replace(/^\s*\*{0,2}(?:narrator|voice-?over|vo|speaker|host)\s*(?:\d+)?\*{0,2}\s*:\s*/i, "") // speaker labels
          .replace(/\[[^\]]*\]|\((?:music|pause|sfx|sound|beat|cut|scene|b-roll)[^)]*\)/gi, "") // directions
          .replace(/[*_]{1,3}([^*_]+)[*_]{1,3}/g, "$1") // emphasis
          .replace(/[*_#>`]/g, "")
          .trim(),
      )
      .filter((l) => /[\p{L}\p{N}]/u.test(l))
      // A line is a unit (a list item, a line of dialogue): it ends a sentence.
      .map((l) => ensureTerminal(l));
    const sentences = splitSentences(lines.join(" "))
      .flatMap((s) => splitLong(collapse(s), MAX_SENTENCE_WORDS))
      .filter((s) => countWords(s) > 0);
    if (sentences.length) paragraphs.push(sentences);
  }
  const total = paragraphs.reduce((n, p) => n + p.reduce((k, s) => k + countWords(s), 0), 0);
  if (total > target * 1.2) {
    let acc = 0;
    const kept: string[][] = [];
    outer: for (const p of paragraphs) {
      const keep: string[] = [];
      for (const s of p) {
        const n = countWords(s);
        // Keep the sentence while it brings the total closer to the target.
        if (acc > 0 && Math.abs(acc + n - target) > Math.abs(acc - target)) {
          if (keep.length) kept.push(keep);
          break outer;
        }
        keep.push(s);
        acc += n;
      }
      kept.push(keep);
    }
    return kept.map((p) => p.join(" ")).join("\n\n");
  }
  return paragraphs.map((p) => p.join(" ")).join("\n\n");
}

/**
 * Asks the model once. Throws LlmError on any failure, including an answer under half the target
 * length (a script that short would not fill the video; the extractive writer does better).
 */
export async function writeWithLlm(cfg: LlmConfig, brief: LlmBrief, signal?: AbortSignal): Promise<string> {
  const shown = displayUrl(new URL(cfg.url));
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(new LlmError(`no answer from ${shown} within ${cfg.timeoutMs} ms`)), cfg.timeoutMs);
  const onAbort = (): void => ctrl.abort(new LlmError("cancelled"));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const body: Record<string, unknown> = {
      messages: llmMessages(brief),
      temperature: 0,
      seed: 0,
      stream: false,
      // Room for the words and some slack; a token is about three quarters of a word.
      max_tokens: Math.ceil(brief.targetWords * 2) + 256,
    };
    if (cfg.model) body.model = cfg.model;
    let res: Response;
    try {
      res = await fetch(cfg.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", "user-agent": `mediagen-local/${mediagenVersion()}` },
        body: JSON.stringify(body),
        signal: ctrl.signal,
      });
    } catch (e) {
      if (ctrl.signal.reason instanceof LlmError) throw ctrl.signal.reason;
      const code = e instanceof Error ? ((e.cause as { code?: string } | undefined)?.code ?? e.name) : "error";
      throw new LlmError(`could not reach ${shown}: ${code}`);
    }
    let json: unknown;
    try {
      const text = await res.text();
      json = JSON.parse(text);
    } catch {
      if (ctrl.signal.reason instanceof LlmError) throw ctrl.signal.reason;
      throw new LlmError(`${shown} answered HTTP ${res.status} without JSON`);
    }
    if (!res.ok) throw new LlmError(`${shown} answered HTTP ${res.status}`);
    const choice = (json as { choices?: { message?: { content?: unknown } }[] }).choices?.[0];
    const content = choice?.message?.content;
    if (typeof content !== "string") throw new LlmError(`${shown} answered without choices[0].message.content`);
    const script = cleanLlmScript(content, brief.targetWords);
    const n = countWords(script);
    if (n < brief.targetWords * 0.5) throw new LlmError(`the model wrote ${n} words for a target of ${brief.targetWords}`);
    return script;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
