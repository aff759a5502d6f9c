/**
 * What the script writer reads from a web page: its title, its readable text as blocks (paragraphs,
 * list items, headings), and its images (`og:image` and `<img src>`) as absolute URLs. A small,
 * forgiving reader for real-world HTML; no DOM and no dependency.
 */
import { collapse } from "./text.js";

export interface PageContent {
  /** The URL as given in the request. */
  url: string;
  title: string | undefined;
  /** Readable text, one entry per block element, whitespace collapsed. */
  blocks: string[];
  /** Absolute http(s) URLs: og:image first, then `<img>` in document order; no duplicates. */
  images: string[];
}

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  bull: "•",
  middot: "·",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  times: "×",
  eacute: "é",
  egrave: "è",
  ecirc: "ê",
  euml: "ë",
  aacute: "á",
  agrave: "à",
  acirc: "â",
  auml: "ä",
  aring: "å",
  iacute: "í",
  igrave: "ì",
  icirc: "î",
  iuml: "ï",
  oacute: "ó",
  ograve: "ò",
  ocirc: "ô",
  ouml: "ö",
  oslash: "ø",
  uacute: "ú",
  ugrave: "ù",
  ucirc: "û",
  uuml: "ü",
  ccedil: "ç",
  ntilde: "ñ",
  szlig: "ß",
  Eacute: "É",
  Egrave: "È",
  Agrave: "À",
  Ccedil: "Ç",
  Ouml: "Ö",
  Uuml: "Ü",
  Auml: "Ä",
  Ntilde: "Ñ",
  shy: "",
  zwj: "",
  zwnj: "",
  thinsp: " ",
  ensp: " ",
  emsp: " ",
};

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (all, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return all;
      return String.fromCodePoint(code);
    }
    return NAMED[name] ?? NAMED[name.toLowerCase()] ?? all;
  });
}

/** The attributes of one start tag, names lower-cased, values decoded. */
export function attributes(tagBody: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (let m = re.exec(tagBody); m; m = re.exec(tagBody)) {
    const name = m[1]!.toLowerCase();
    if (name in out) continue;
    out[name] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? "");
  }
  return out;
}

function startTags(html: string, names: string): { name: string; attrs: Record<string, string> }[] {
  const re = new RegExp(`<(${names})\\b([^>]*)>`, "gi");
  const out: { name: string; attrs: Record<string, string> }[] = [];
  for (let m = re.exec(html); m; m = re.exec(html)) out.push({ name: m[1]!.toLowerCase(), attrs: attributes(m[2]!) });
  return out;
}

function absoluteHttp(value: string | undefined, base: string): string | undefined {
  const v = value?.trim();
  if (!v || /^(data|javascript|blob|about):/i.test(v)) return undefined;
  try {
    const u = new URL(v, base);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

const OG_IMAGE = new Set(["og:image", "og:image:url", "og:image:secure_url"]);

/** og:image (and its :url/:secure_url forms) first, then `<img src>` (or `data-src` for lazy images). */
export function pageImages(html: string, pageUrl: string): string[] {
  const withoutComments = html.replace(/<!--[\s\S]*?-->/g, "");
  let base = pageUrl;
  const baseTag = startTags(withoutComments, "base").find((t) => t.attrs.href);
  if (baseTag) base = absoluteHttp(baseTag.attrs.href, pageUrl) ?? pageUrl;
  const og: string[] = [];
  const imgs: string[] = [];
  for (const t of startTags(withoutComments, "meta|img")) {
    if (t.name === "meta") {
      const key = (t.attrs.property ?? t.attrs.name ?? "").toLowerCase();
      if (OG_IMAGE.has(key)) {
        const u = absoluteHttp(t.attrs.content, base);
        if (u) og.push(u);
      }
    } else {
      const src = absoluteHttp(t.attrs.src, base) ?? absoluteHttp(t.attrs["data-src"], base);
      if (src) imgs.push(src);
    }
  }
  return [...new Set([...og, ...imgs])];
}

const DROP_WITH_CONTENT = /<(script|style|noscript|template|svg|math|iframe|object|canvas|select|button|head|title)\b[\s\S]*?<\/\1\s*>/gi;
const DROP_CHROME = /<(nav|header|footer|aside|form|menu|dialog)\b[\s\S]*?<\/\1\s*>/gi;
const BLOCK =
  /<\/?(p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|thead|tbody|section|article|main|blockquote|pre|dd|dt|dl|figcaption|figure|hr|address|details|summary|caption)\b[^>]*>/gi;

/** The part of the body that holds the content: the `<article>` elements, else `<main>`, else `<body>`. */
function contentRegion(html: string): string {
  const articles = [...html.matchAll(/<article\b[^>]*>([\s\S]*?)<\/article\s*>/gi)].map((m) => m[1]!);
  if (articles.some((a) => a.replace(/<[^>]*>/g, "").trim() !== "")) return articles.join("\n");
  const main = /<main\b[^>]*>([\s\S]*?)<\/main\s*>/i.exec(html)?.[1];
  if (main && main.replace(/<[^>]*>/g, "").trim() !== "") return main;
  return /<body\b[^>]*>([\s\S]*)<\/body\s*>/i.exec(html)?.[1] ?? /<body\b[^>]*>([\s\S]*)$/i.exec(html)?.[1] ?? html;
}

export function pageTitle(html: string): string | undefined {
  const og = startTags(html.replace(/<!--[\s\S]*?-->/g, ""), "meta").find(
    (t) => (t.attrs.property ?? t.attrs.name ?? "").toLowerCase() === "og:title" && t.attrs.content?.trim(),
  );
  const raw = og?.attrs.content ?? /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1];
  const t = raw === undefined ? "" : collapse(decodeEntities(raw.replace(/<[^>]*>/g, "")));
  return t || undefined;
}

/** Readable text blocks of a page: scripts, styles, navigation, headers, footers and forms left out. */
export function pageBlocks(html: string): string[] {
  const cleaned = html.replace(/<!--[\s\S]*?-->/g, "").replace(DROP_WITH_CONTENT, "\n");
  const region = contentRegion(cleaned).replace(DROP_CHROME, "\n");
  const text = region.replace(BLOCK, "\n").replace(/<[^>]*>/g, "");
  return decodeEntities(text)
    .split(/\n+/)
    .map(collapse)
    .filter((b) => b !== "");
}

export function readHtml(html: string, url: string, finalUrl = url): PageContent {
  return { url, title: pageTitle(html), blocks: pageBlocks(html), images: pageImages(html, finalUrl) };
}

/** A text/plain page: paragraphs are separated by blank lines; single line breaks are wrapping. */
export function readPlainText(text: string, url: string): PageContent {
  const blocks = text
    .split(/\r?\n\s*\r?\n/)
    .map(collapse)
    .filter((b) => b !== "");
  return { url, title: undefined, blocks, images: [] };
}
