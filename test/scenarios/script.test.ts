/**
 * POST /script/generate on both targets: every rule with its code and field, the price debited once,
 * 402 with `{error, code, required, available}`, failures refunded exactly once, pages read from a
 * local HTTP server (fetch does not refuse loopback, so the served instance reads them too).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ScriptGenerateResponse } from "../../src/features/script/contract.js";
import { countWords } from "../../src/features/script/emulator/text.js";
import type { Engine } from "../../src/engine/engine.js";
import { apiError, forBothTargets, type TargetHarness } from "./harness.js";

const ARTICLE = `<!doctype html><html><head><title>Night trains</title>
<meta property="og:image" content="/media/og-train.jpg"></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>The return of night trains</h1>
<p>Night trains are coming back across Europe as travellers look for greener ways to cross the continent.</p>
<p>A sleeper from Vienna to Paris now runs three times a week, and bookings have doubled since last spring.</p>
<img src="img/cabin.png"><img src="https://cdn.example.org/seat.webp"><img src="img/cabin.png">
<p>Operators say the biggest challenge is finding enough modern sleeping cars for every route.</p></article>
<footer>© 2025 Rail Weekly. All rights reserved.</footer></body></html>`;

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/article") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ARTICLE);
    else if (req.url === "/notes.txt")
      res.writeHead(200, { "content-type": "text/plain" }).end("Sleeper cabins hold up to six people in couchettes.\n\nMost routes leave after eight in the evening.");
    else res.writeHead(404).end("not found");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

interface Space {
  engine: Engine;
  id: string;
  credits: () => number;
  /** Ledger rows other than the opening grant, oldest first. */
  movements: () => { kind: string; amount: number; ref: string }[];
}

function space(t: TargetHarness, credits = 1000): Space {
  const key = t.newKey({ credits });
  const id = t.instance.spaceForKey(key)!.id;
  return {
    engine: t.engineFor(key, { rateLimitRetries: 0 }),
    id,
    credits: () => t.instance.ledger.balance(id) / 1000,
    movements: () =>
      (
        t.instance.db.prepare("SELECT kind, amount_milli, ref FROM ledger WHERE space_id = ? AND kind <> 'grant' ORDER BY id").all(id) as {
          kind: string;
          amount_milli: number;
          ref: string;
        }[]
      ).map((r) => ({ kind: r.kind, amount: r.amount_milli / 1000, ref: r.ref })),
  };
}

forBothTargets("script generate", (t) => {
  it("writes a script of about the duration, priced 0.1 per started minute, debited once", async () => {
    const s = space(t);
    const res = await s.engine.scriptGenerate({ prompt: "Write a script about the benefits of green tea for busy people." });
    expect(Object.keys(res).sort()).toEqual(["cost", "extractedImages", "script"]);
    expect(ScriptGenerateResponse.parse(res)).toEqual(res);
    expect(res.cost).toBe(0.1);
    expect(res.extractedImages).toEqual([]);
    const n = countWords(res.script);
    expect(n).toBeGreaterThanOrEqual(144); // 60 s at 3 words per second, ±20 %
    expect(n).toBeLessThanOrEqual(216);
    expect(res.script).toMatch(/green tea/);
    expect(s.credits()).toBe(999.9);
    expect(s.movements()).toEqual([{ kind: "debit", amount: -0.1, ref: expect.stringMatching(/^scr_/) }]);
    const row = t.instance.db.prepare("SELECT status, writer, script, cost_milli FROM scripts WHERE id = ?").get(s.movements()[0]!.ref);
    expect(row).toEqual({ status: "done", writer: "extractive", script: res.script, cost_milli: 100 });
  });

  it("prices duration, web search and URLs by the spec's formula; the balance adds up", async () => {
    const s = space(t, 10);
    const cases: [Record<string, unknown>, number][] = [
      [{ duration: 10 }, 0.1],
      [{ duration: 60 }, 0.1],
      [{ duration: 61 }, 0.2],
      [{ duration: 120 }, 0.2],
      [{ duration: 600 }, 1],
      [{ duration: 45.5, webSearch: true }, 0.2],
      [{ urls: [`${base}/article`, `${base}/notes.txt`, `${base}/missing`] }, 0.4],
      [{ duration: 90, webSearch: true, urls: [`${base}/article`] }, 0.4],
    ];
    let spent = 0;
    for (const [body, cost] of cases) {
      const res = await s.engine.scriptGenerate({ prompt: "Night trains in Europe.", ...body });
      expect([body, res.cost]).toEqual([body, cost]);
      spent += cost;
    }
    expect(s.credits()).toBeCloseTo(10 - spent, 9);
    expect(Math.round(s.credits() * 1000)).toBe(10_000 - Math.round(spent * 1000));
    expect(s.movements().map((m) => m.kind)).toEqual(cases.map(() => "debit"));
  });

  it.each([
    ["no prompt", {}, "MISSING_FIELD", "prompt"],
    ["null prompt", { prompt: null }, "MISSING_FIELD", "prompt"],
    ["empty prompt", { prompt: "  " }, "MISSING_FIELD", "prompt"],
    ["prompt not a string", { prompt: 42 }, "INVALID_TYPE", "prompt"],
    ["prompt over 10,000 characters", { prompt: "a".repeat(10_001) }, "INVALID_VALUE", "prompt"],
    ["duration as a string", { prompt: "x", duration: "60" }, "INVALID_TYPE", "duration"],
    ["duration under 10", { prompt: "x", duration: 9.5 }, "INVALID_VALUE", "duration"],
    ["duration over 600", { prompt: "x", duration: 601 }, "INVALID_VALUE", "duration"],
    ["urls not an array", { prompt: "x", urls: "https://example.com" }, "INVALID_TYPE", "urls"],
    ["more than 10 urls", { prompt: "x", urls: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}`) }, "INVALID_VALUE", "urls"],
    ["a url that is not a string", { prompt: "x", urls: ["https://example.com", 7] }, "INVALID_TYPE", "urls[1]"],
    ["a url that is not a URL", { prompt: "x", urls: ["example dot com"] }, "INVALID_VALUE", "urls[0]"],
    ["an ftp url", { prompt: "x", urls: ["ftp://example.com/a"] }, "INVALID_VALUE", "urls[0]"],
    ["a file url", { prompt: "x", urls: ["file:///etc/hostname"] }, "INVALID_VALUE", "urls[0]"],
    ["webSearch not a boolean", { prompt: "x", webSearch: "yes" }, "INVALID_TYPE", "webSearch"],
    // The spec's order: prompt, duration, urls, webSearch.
    ["prompt before duration", { prompt: 1, duration: "x" }, "INVALID_TYPE", "prompt"],
    ["missing prompt before the rest", { duration: 5000, urls: "x", webSearch: 1 }, "MISSING_FIELD", "prompt"],
    ["duration before urls", { prompt: "x", duration: 0, urls: "x", webSearch: 1 }, "INVALID_VALUE", "duration"],
    ["urls before webSearch", { prompt: "x", urls: ["gopher://x"], webSearch: 1 }, "INVALID_VALUE", "urls[0]"],
    ["url count before the items", { prompt: "x", urls: Array.from({ length: 11 }, () => 5) }, "INVALID_VALUE", "urls"],
  ])("400 %s → %s on %s, nothing debited", async (_name, body, code, field) => {
    const s = space(t, 0.1);
    const e = await apiError(s.engine.scriptGenerate(body as never));
    expect([e.status, e.code, e.field]).toEqual([400, code, field]);
    expect(e.body).toEqual({ error: "Validation failed", details: [{ code, message: expect.any(String), field }] });
    expect(s.credits()).toBe(0.1);
    expect(s.movements()).toEqual([]);
  });

  it("limits are inclusive: 10,000 characters (code points), 10 and 600 seconds, 10 URLs", async () => {
    const s = space(t);
    // 10,000 code points are 15,000 UTF-16 units here: the limit counts characters.
    const long = await s.engine.scriptGenerate({ prompt: "a🎉".repeat(5_000), duration: 10 });
    expect(long.cost).toBe(0.1);
    expect((await s.engine.scriptGenerate({ prompt: "Night trains.", duration: 600 })).cost).toBe(1);
    const ten = Array.from({ length: 10 }, (_, i) => `${base}/missing-${i}`);
    expect((await s.engine.scriptGenerate({ prompt: "Night trains.", urls: ten })).cost).toBe(1.1);
    expect(s.credits()).toBeCloseTo(1000 - 0.1 - 1 - 1.1, 9);
  });

  it("402 INSUFFICIENT_CREDITS with required and available, after validation; an exact balance is enough", async () => {
    const s = space(t, 0.1);
    const e = await apiError(s.engine.scriptGenerate({ prompt: "Night trains.", duration: 61 }));
    expect([e.status, e.body]).toEqual([402, { error: expect.any(String), code: "INSUFFICIENT_CREDITS", required: 0.2, available: 0.1 }]);
    const invalid = await apiError(s.engine.scriptGenerate({ prompt: "Night trains.", duration: 61, webSearch: "no" } as never));
    expect(invalid.status).toBe(400);
    expect(s.movements()).toEqual([]);
    expect((await s.engine.scriptGenerate({ prompt: "Night trains." })).cost).toBe(0.1);
    expect(s.credits()).toBe(0);
    const broke = await apiError(s.engine.scriptGenerate({ prompt: "Night trains.", urls: [`${base}/article`] }));
    expect(broke.body).toEqual({ error: expect.any(String), code: "INSUFFICIENT_CREDITS", required: 0.2, available: 0 });
  });

  it("simulated failure: 500 SCRIPT_GENERATION_FAILED, debited once and refunded once", async () => {
    const s = space(t);
    const e = await apiError(s.engine.scriptGenerate({ prompt: "Night trains.", duration: 120, webSearch: true }, { simulate: "fail" }));
    expect([e.status, e.body]).toEqual([500, { error: expect.any(String), code: "SCRIPT_GENERATION_FAILED" }]);
    const moves = s.movements();
    expect(moves).toEqual([
      { kind: "debit", amount: -0.3, ref: expect.stringMatching(/^scr_/) },
      { kind: "refund", amount: 0.3, ref: moves[0]!.ref },
    ]);
    expect(s.credits()).toBe(1000);
    expect(t.instance.db.prepare("SELECT status, error_code FROM scripts WHERE id = ?").get(moves[0]!.ref)).toEqual({
      status: "failed",
      error_code: "SCRIPT_GENERATION_FAILED",
    });
  });

  it("fail:<CODE> answers that code; a malformed simulate value is 400 invalid_value before any debit", async () => {
    const s = space(t);
    const custom = await apiError(s.engine.scriptGenerate({ prompt: "x" }, { simulate: "fail:WRITER_DOWN" }));
    expect([custom.status, custom.body]).toEqual([500, { error: expect.any(String), code: "WRITER_DOWN" }]);
    expect(s.movements().map((m) => m.kind)).toEqual(["debit", "refund"]);
    const bad = await apiError(s.engine.scriptGenerate({ prompt: "x" }, { simulate: "explode" }));
    expect([bad.status, bad.code, bad.field]).toEqual([400, "invalid_value", "X-Local-Simulate"]);
    // The body is checked once at the door, before the handler reads the header; neither debits.
    const first = await apiError(s.engine.scriptGenerate({}, { simulate: "explode" }));
    expect([first.code, first.field]).toEqual(["MISSING_FIELD", "prompt"]);
    expect(s.movements()).toHaveLength(2);
    expect(s.credits()).toBe(1000);
  });

  it("a writer failure (a prompt without a single word) is SCRIPT_GENERATION_FAILED and refunded", async () => {
    const s = space(t);
    const e = await apiError(s.engine.scriptGenerate({ prompt: "?!? … 🎉" }));
    expect([e.status, e.code]).toEqual([500, "SCRIPT_GENERATION_FAILED"]);
    expect(e.message).toMatch(/no words/);
    expect(s.movements().map((m) => [m.kind, m.amount])).toEqual([
      ["debit", -0.1],
      ["refund", 0.1],
    ]);
    expect(s.credits()).toBe(1000);
  });

  it("reads the pages: their text in the script, their images (og:image, <img>) absolute and once; an unreadable page is left out", async () => {
    const s = space(t);
    const res = await s.engine.scriptGenerate({
      prompt: "Write a script about night trains in Europe.",
      duration: 30,
      urls: [`${base}/article`, `${base}/missing`, `${base}/notes.txt`],
    });
    expect(res.cost).toBe(0.4);
    expect(res.extractedImages).toEqual([`${base}/media/og-train.jpg`, `${base}/img/cabin.png`, "https://cdn.example.org/seat.webp"]);
    expect(res.script).toContain("Night trains are coming back across Europe");
    expect(res.script).not.toMatch(/Home|About|rights reserved/);
    const n = countWords(res.script);
    expect(n).toBeGreaterThanOrEqual(72);
    expect(n).toBeLessThanOrEqual(108);
  });

  it("the same input gives the same script", async () => {
    const s = space(t);
    const body = { prompt: "Write a script about night trains in Europe.", duration: 45, urls: [`${base}/article`] };
    const a = await s.engine.scriptGenerate(body);
    const b = await s.engine.scriptGenerate(body);
    expect(b).toEqual(a);
  });
});
