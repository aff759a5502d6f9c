/**
 * Fetching the pages a script request names. Unlike media references (src/media/fetch.ts: files
 * cached by URL, up to 200 MiB), a page is read fresh, small and with its headers: the content type
 * and charset decide how it is read, and the URL it ended at after redirects is the base its image
 * links resolve against. A page that cannot be read is left out; the script is written without it.
 */
import type { IncomingMessage } from "node:http";
import type { AddressPolicy } from "../../../media/address-policy.js";
import { displayUrl, fetchErrorCode, openUrl, requestDeadline } from "../../../media/fetch.js";
import { mediagenVersion } from "../../../local/version.js";
import { readHtml, readPlainText, type PageContent } from "./html.js";

export const PAGE_TIMEOUT_MS = 10_000;
/** Enough for any article; a longer page is read up to this many bytes. */
export const PAGE_MAX_BYTES = 2 * 1024 * 1024;

export interface PageFetchOptions {
  timeoutMs?: number;
  maxBytes?: number;
  signal?: AbortSignal;
  /**
   * RequestContext.allowPrivateNetwork: over `serve` a page may only be on a public address (checked
   * on the resolved address and on every redirect; URL credentials dropped), as media URLs are.
   */
  allowPrivateNetwork: boolean;
  /** The addresses a public-only fetch may reach (default: public unicast ones). */
  addressPolicy?: AddressPolicy;
}

export interface FetchedPage {
  finalUrl: string;
  contentType: string;
  charset: string | undefined;
  bytes: Uint8Array;
}

export class PageFetchError extends Error {
  override readonly name = "PageFetchError";
}

/** One GET: redirects followed under the address policy, a deadline for the whole request, the body cut at `maxBytes`. */
export async function fetchPage(url: string, o: PageFetchOptions): Promise<FetchedPage> {
  const timeoutMs = o.timeoutMs ?? PAGE_TIMEOUT_MS;
  const maxBytes = o.maxBytes ?? PAGE_MAX_BYTES;
  const target = new URL(url);
  const shown = displayUrl(target);
  const headers: Record<string, string> = {
    accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1",
    "user-agent": `mediagen-local/${mediagenVersion()}`,
  };
  const deadline = requestDeadline(timeoutMs, o.signal);
  let res: IncomingMessage | undefined;
  try {
    const opened = await openUrl(target, {
      allowPrivateNetwork: o.allowPrivateNetwork,
      ...(o.addressPolicy ? { addressPolicy: o.addressPolicy } : {}),
      signal: deadline.signal,
      headers,
    });
    res = opened.res;
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) throw new PageFetchError(`HTTP ${status} fetching ${shown}`);
    const contentType = String(res.headers["content-type"] ?? "").toLowerCase();
    const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const value of res as AsyncIterable<Buffer>) {
      const room = maxBytes - total;
      chunks.push(value.byteLength > room ? value.subarray(0, room) : value);
      total += Math.min(value.byteLength, room);
      if (total >= maxBytes) break;
    }
    return { finalUrl: opened.url.href, contentType: contentType.split(";")[0]!.trim(), charset, bytes: Buffer.concat(chunks) };
  } catch (e) {
    // On a remote caller's behalf every failure reads the same: nothing about an address or a port
    // may be learnt from the message (the same rule as media fetches).
    if (!o.allowPrivateNetwork && !o.signal?.aborted) throw new PageFetchError(`could not fetch ${shown}`);
    if (e instanceof PageFetchError) throw e;
    if (deadline.timedOut) throw new PageFetchError(`timed out after ${timeoutMs} ms fetching ${shown}`);
    if (o.signal?.aborted) throw new PageFetchError(`cancelled fetching ${shown}`);
    throw new PageFetchError(`could not fetch ${shown}: ${fetchErrorCode(e)}`);
  } finally {
    res?.destroy();
    deadline.end();
  }
}

/** The charset a page declares in its first bytes (`<meta charset>` or the http-equiv form). */
function declaredCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 4096)).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}

function decode(bytes: Uint8Array, charset: string | undefined): string {
  for (const label of [charset, "utf-8"]) {
    if (!label) continue;
    try {
      return new TextDecoder(label).decode(bytes);
    } catch {
      // unknown label: try the next one
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

const looksLikeHtml = (text: string): boolean => /<(!doctype html|html|head|body|p|div|article|title)\b/i.test(text.slice(0, 4096));

/** A fetched page as the writer reads it; undefined for content that is not text (images, PDFs…). */
export function readPage(url: string, page: FetchedPage): PageContent | undefined {
  const type = page.contentType;
  const isHtml = type === "text/html" || type === "application/xhtml+xml";
  if (isHtml || type === "") {
    const text = decode(page.bytes, page.charset ?? declaredCharset(page.bytes));
    if (isHtml || looksLikeHtml(text)) return readHtml(text, url, page.finalUrl);
    return readPlainText(text, url);
  }
  if (type === "text/plain" || type === "text/markdown") return readPlainText(decode(page.bytes, page.charset), url);
  return undefined;
}

export interface PageResult {
  url: string;
  page?: PageContent;
  /** Why the page was left out. */
  error?: string;
}

/**
 * Every distinct URL fetched at once; results in the order of first mention. Never throws: a page
 * that fails is reported in `error` and left out of the script.
 */
export async function readPages(urls: readonly string[], o: PageFetchOptions): Promise<PageResult[]> {
  const unique = [...new Set(urls)];
  return Promise.all(
    unique.map(async (url): Promise<PageResult> => {
      try {
        const page = readPage(url, await fetchPage(url, o));
        return page ? { url, page } : { url, error: "not a web page (neither HTML nor text)" };
      } catch (e) {
        return { url, error: e instanceof Error ? e.message : String(e) };
      }
    }),
  );
}
