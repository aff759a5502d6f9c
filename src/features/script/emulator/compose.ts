/**
 * One script from a validated request: read the pages, then let the local language model write it
 * when one is configured, else (or when it fails) the extractive writer. No database, no credits:
 * the handler (local.ts) does those around this call.
 */
import { readPages, type PageFetchOptions } from "./page.js";
import type { ScriptPlan } from "./validate.js";
import { extractedImages, material, targetWords, writeExtractive } from "./writer.js";
import { llmConfigFrom, writeWithLlm } from "./llm.js";
import type { PageContent } from "./html.js";
import type { Env } from "../../../config/env.js";

export interface ComposeOptions {
  /** Where MEDIAGEN_LOCAL_LLM_* are read; default this process's environment. */
  env?: Env;
  /** How pages are fetched; `allowPrivateNetwork` is the request's (RequestContext). */
  fetch: PageFetchOptions;
  signal?: AbortSignal;
  /** Why a page or the model was not used (debug output). */
  log?: (line: string) => void;
}

export interface ComposedScript {
  script: string;
  extractedImages: string[];
  writer: "llm" | "extractive";
  /** Pages that could not be read, with the reason. */
  skipped: { url: string; error: string }[];
}

export async function composeScript(plan: ScriptPlan, o: ComposeOptions): Promise<ComposedScript> {
  const results = plan.urls.length ? await readPages(plan.urls, { ...o.fetch, ...(o.signal ? { signal: o.signal } : {}) }) : [];
  const pages: PageContent[] = results.flatMap((r) => (r.page ? [r.page] : []));
  const skipped = results.flatMap((r) => (r.error !== undefined ? [{ url: r.url, error: r.error }] : []));
  for (const s of skipped) o.log?.(`script: page left out: ${s.error}`);
  const input = { prompt: plan.prompt, duration: plan.duration, pages };
  const images = extractedImages(pages);

  let cfg: ReturnType<typeof llmConfigFrom>;
  try {
    cfg = llmConfigFrom(o.env);
  } catch (e) {
    o.log?.(`script: local model not used: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (cfg) {
    try {
      const script = await writeWithLlm(
        cfg,
        { prompt: plan.prompt, duration: plan.duration, targetWords: targetWords(plan.duration), material: material(input), pages },
        o.signal,
      );
      return { script, extractedImages: images, writer: "llm", skipped };
    } catch (e) {
      o.log?.(`script: local model failed, writing extractively: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { script: writeExtractive(input), extractedImages: images, writer: "extractive", skipped };
}
