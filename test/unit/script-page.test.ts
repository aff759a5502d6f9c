/**
 * Reading web pages for scripts: text tools, the HTML reader (text blocks, title, images) and the
 * page fetcher against a local HTTP server on 127.0.0.1:0.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attributes, decodeEntities, pageBlocks, pageImages, pageTitle, readHtml } from "../../src/features/script/emulator/html.js";
import { fetchPage, readPage, readPages } from "../../src/features/script/emulator/page.js";
import { countWords, ensureTerminal, phrases, splitLong, splitSentences } from "../../src/features/script/emulator/text.js";

/** This machine's own fetches (in process): loopback is allowed, as the test server is on it. */
const OWN = { allowPrivateNetwork: true } as const;

describe("text tools", () => {
  it("splits sentences, keeping abbreviations, initials, decimals and lower-case continuations together", () => {
    expect(splitSentences("Dr. Smith met J. K. Rowling at 3.5 p.m. on Friday. It rained! Did it? Yes… mostly. e.g. this stays.")).toEqual([
      "Dr. Smith met J. K. Rowling at 3.5 p.m. on Friday.",
      "It rained!",
      "Did it?",
      "Yes… mostly. e.g. this stays.",
    ]);
    expect(splitSentences('He said "stop." Then he left.\nNew line')).toEqual(['He said "stop."', "Then he left.", "New line"]);
    expect(splitSentences("It was late. then it rained.")).toEqual(["It was late. then it rained."]);
    expect(splitSentences("  ")).toEqual([]);
  });

  it("ends every sentence with punctuation", () => {
    expect(ensureTerminal("Hello")).toBe("Hello.");
    expect(ensureTerminal("Hello,  ")).toBe("Hello.");
    expect(ensureTerminal("Really?")).toBe("Really?");
    expect(ensureTerminal('He said "yes."')).toBe('He said "yes."');
    expect(ensureTerminal("list:")).toBe("list.");
  });

  it("cuts a long sentence at clause marks, else between words, each piece a sentence", () => {
    const long = "first part of the sentence goes here, second part follows with more words in it; third part closes the long thought";
    const pieces = splitLong(long, 10);
    expect(pieces).toEqual(["First part of the sentence goes here.", "Second part follows with more words in it.", "Third part closes the long thought."]);
    const run = splitLong(Array.from({ length: 25 }, (_, i) => `w${i}`).join(" "), 10);
    expect(run.map(countWords)).toEqual([10, 10, 5]);
    for (const p of run) expect(p).toMatch(/^W?\w.*\.$/);
  });

  it("finds noun phrases and names, most frequent first", () => {
    const found = phrases([{ text: "Our bakery opens a second shop in Lyon on May 3. The shop sells bread. Our bakery is old.", weight: 1 }], 5);
    expect(found.map((p) => p.text)).toEqual(["our bakery", "Lyon", "the shop"]);
    expect(found.find((p) => p.text === "Lyon")?.name).toBe(true);
    expect(phrases([{ text: "About the benefits of green tea.", weight: 1 }], 3).map((p) => p.text)).toEqual(["the benefits of green tea"]);
  });
});

describe("HTML reader", () => {
  it("decodes entities and attributes", () => {
    expect(decodeEntities("Caf&eacute; &amp; bar &#8212; &#x1F389; &nbsp;&bogus; &#0;")).toBe("Café & bar — 🎉  &bogus; &#0;");
    expect(attributes(` src="a.png?x=1&amp;y=2" data-src='b.png' alt=plain hidden SRC="ignored"`)).toEqual({
      src: "a.png?x=1&y=2",
      "data-src": "b.png",
      alt: "plain",
      hidden: "",
    });
  });

  it("reads the title: og:title first, then <title>", () => {
    expect(pageTitle("<title> A &amp; B </title>")).toBe("A & B");
    expect(pageTitle(`<meta content="Social" property="og:title"><title>Plain</title>`)).toBe("Social");
    expect(pageTitle("<p>none</p>")).toBeUndefined();
  });

  it("collects images: og:image first, then <img> (data-src for lazy ones), absolute, http(s) only, once", () => {
    const html = `<head><base href="/assets/"><meta property="og:image" content="og.jpg"><meta name="og:image:secure_url" content="https://cdn.x/og2.jpg"></head>
      <body><img src="a.png"><img data-src="lazy.webp"><img src="data:image/png;base64,AAAA"><img src="javascript:alert(1)">
      <img src="//cdn.x/p.jpg"><img src="../up.png"><!-- <img src="commented.png"> --><IMG SRC="a.png"><img src="ftp://x/y.png"></body>`;
    expect(pageImages(html, "https://site.example/blog/post.html")).toEqual([
      "https://site.example/assets/og.jpg",
      "https://cdn.x/og2.jpg",
      "https://site.example/assets/a.png",
      "https://site.example/assets/lazy.webp",
      "https://cdn.x/p.jpg",
      "https://site.example/up.png",
    ]);
  });

  it("keeps the readable text: the article (else main, else body), without scripts, styles, navigation, headers, footers or forms", () => {
    const html = `<html><head><title>T</title><style>p{color:red}</style></head><body>
      <header>Site name</header><nav><ul><li>Home</li><li>News</li></ul></nav>
      <article><h1>Headline here</h1><p>First paragraph with <b>bold</b> text.</p><script>var x = "<p>no</p>";</script>
      <ul><li>Item one is a full sentence.</li></ul><form><button>Send</button></form></article>
      <aside>Related links</aside><footer>Footer text</footer></body></html>`;
    expect(pageBlocks(html)).toEqual(["Headline here", "First paragraph with bold text.", "Item one is a full sentence."]);
    expect(pageBlocks("<body><div>Side</div><main><p>Main text.</p></main></body>")).toEqual(["Main text."]);
    expect(pageBlocks("<body><p>One.</p><p>Two.</p></body>")).toEqual(["One.", "Two."]);
    expect(pageBlocks("just text, no tags")).toEqual(["just text, no tags"]);
  });

  it("reads text/plain by paragraphs and leaves non-text content out", () => {
    const text = { finalUrl: "http://x/", contentType: "text/plain", charset: undefined, bytes: Buffer.from("Para one\nwraps here.\n\nPara two.") };
    expect(readPage("http://x/", text)?.blocks).toEqual(["Para one wraps here.", "Para two."]);
    expect(readPage("http://x/", { ...text, contentType: "image/png" })).toBeUndefined();
    const sniffed = readPage("http://x/", { ...text, contentType: "", bytes: Buffer.from("<!doctype html><p>Hi there.</p><img src=i.png>") });
    expect(sniffed).toMatchObject({ blocks: ["Hi there."], images: ["http://x/i.png"] });
  });

  it("decodes the declared charset (header or <meta charset>)", () => {
    const latin1 = Buffer.from("<meta charset=iso-8859-1><p>Caf\xe9 cr\xe8me.</p>", "latin1");
    expect(readPage("http://x/", { finalUrl: "http://x/", contentType: "text/html", charset: undefined, bytes: latin1 })?.blocks).toEqual(["Café crème."]);
    const header = Buffer.from("<p>Gr\xfc\xdfe.</p>", "latin1");
    expect(readPage("http://x/", { finalUrl: "http://x/", contentType: "text/html", charset: "windows-1252", bytes: header })?.blocks).toEqual(["Grüße."]);
  });
});

describe("page fetcher", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = req.url ?? "/";
      if (url === "/moved") res.writeHead(302, { location: "/deep/page" }).end();
      else if (url === "/deep/page") res.writeHead(200, { "content-type": "text/html" }).end(`<title>Deep</title><p>Deep text here.</p><img src="pic.png">`);
      else if (url === "/big") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("x".repeat(300_000));
      } else if (url === "/slow") {
        setTimeout(() => res.writeHead(200, { "content-type": "text/plain" }).end("late"), 2_000);
      } else if (url === "/ua") res.writeHead(200, { "content-type": "text/plain" }).end(String(req.headers["user-agent"]) + " " + String(req.headers.authorization));
      else if (url === "/image") res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(10));
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });

  it("follows redirects and resolves images against the final URL", async () => {
    const page = await fetchPage(`${base}/moved`, OWN);
    expect(page.finalUrl).toBe(`${base}/deep/page`);
    expect(readPage(`${base}/moved`, page)).toEqual({ url: `${base}/moved`, title: "Deep", blocks: ["Deep text here."], images: [`${base}/deep/pic.png`] });
  });

  it("cuts a page at the byte cap instead of failing", async () => {
    const page = await fetchPage(`${base}/big`, { ...OWN, maxBytes: 1000 });
    expect(page.bytes.byteLength).toBe(1000);
  });

  it("sends a user agent, and credentials in the URL as Basic auth", async () => {
    const u = new URL(`${base}/ua`);
    u.username = "me";
    u.password = "secret";
    const page = await fetchPage(u.href, OWN);
    expect(Buffer.from(page.bytes).toString()).toMatch(/^mediagen-local\/\S+ Basic bWU6c2VjcmV0$/);
  });

  it("times out, and reports HTTP errors without the query string", async () => {
    await expect(fetchPage(`${base}/slow`, { ...OWN, timeoutMs: 200 })).rejects.toThrow(/timed out after 200 ms fetching http:\/\/127\.0\.0\.1:\d+\/slow$/);
    await expect(fetchPage(`${base}/nothing?token=abc`, OWN)).rejects.toThrow(/^HTTP 404 fetching http:\/\/127\.0\.0\.1:\d+\/nothing$/);
    await expect(fetchPage("http://127.0.0.1:1/", OWN)).rejects.toThrow(/could not fetch/);
  });

  it("reads every distinct page at once and never throws: failures are reported and left out", async () => {
    const results = await readPages([`${base}/deep/page`, `${base}/image`, `${base}/deep/page`, `${base}/gone`], OWN);
    expect(results.map((r) => [r.url, r.page?.title ?? null, r.error ?? null])).toEqual([
      [`${base}/deep/page`, "Deep", null],
      [`${base}/image`, null, "not a web page (neither HTML nor text)"],
      [`${base}/gone`, null, expect.stringMatching(/^HTTP 404/)],
    ]);
  });

  it("a page of the reader in full", () => {
    expect(readHtml(`<title>T</title><meta property="og:image" content="https://i/x.jpg"><p>Body text.</p>`, "https://s/")).toEqual({
      url: "https://s/",
      title: "T",
      blocks: ["Body text."],
      images: ["https://i/x.jpg"],
    });
  });

  it("on a remote caller's behalf: refuses loopback pages and says the same for every failure", async () => {
    await expect(fetchPage(`${base}/moved`, { allowPrivateNetwork: false })).rejects.toThrow(/^could not fetch http:\/\/127\.0\.0\.1:\d+\/moved$/);
    await expect(fetchPage("http://127.0.0.1:1/", { allowPrivateNetwork: false })).rejects.toThrow(/^could not fetch http:\/\/127\.0\.0\.1:1\/$/);
    const results = await readPages([`${base}/deep/page`], { allowPrivateNetwork: false });
    expect(results[0]!.page).toBeUndefined();
    expect(results[0]!.error).toMatch(/^could not fetch /);
  });
});
