/**
 * The optional local language model (MEDIAGEN_LOCAL_LLM_URL): the request it gets, how its answer
 * becomes a script, and the fall back to the extractive writer on every kind of failure. The model
 * is a fake OpenAI-compatible server on 127.0.0.1:0.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chatCompletionsUrl, cleanLlmScript, llmConfigFrom, LLM_TIMEOUT_MS } from "../../src/features/script/emulator/llm.js";
import { composeScript } from "../../src/features/script/emulator/compose.js";
import { countWords } from "../../src/features/script/emulator/text.js";
import { writeExtractive } from "../../src/features/script/emulator/writer.js";

describe("configuration", () => {
  it("appends /chat/completions unless the URL already names it", () => {
    expect(chatCompletionsUrl("http://127.0.0.1:8080/v1")).toBe("http://127.0.0.1:8080/v1/chat/completions");
    expect(chatCompletionsUrl("http://127.0.0.1:8080/v1/")).toBe("http://127.0.0.1:8080/v1/chat/completions");
    expect(chatCompletionsUrl("http://localhost:11434/v1/chat/completions")).toBe("http://localhost:11434/v1/chat/completions");
    expect(chatCompletionsUrl("https://llm.lan")).toBe("https://llm.lan/chat/completions");
    expect(() => chatCompletionsUrl("ftp://x")).toThrow(/http\(s\)/);
  });

  it("is off without MEDIAGEN_LOCAL_LLM_URL; model and timeout are optional", () => {
    expect(llmConfigFrom({})).toBeUndefined();
    expect(llmConfigFrom({ MEDIAGEN_LOCAL_LLM_URL: "  " })).toBeUndefined();
    expect(llmConfigFrom({ MEDIAGEN_LOCAL_LLM_URL: "http://h/v1" })).toEqual({ url: "http://h/v1/chat/completions", model: undefined, timeoutMs: LLM_TIMEOUT_MS });
    expect(llmConfigFrom({ MEDIAGEN_LOCAL_LLM_URL: "http://h/v1", MEDIAGEN_LOCAL_LLM_MODEL: "qwen2.5:3b", MEDIAGEN_LOCAL_LLM_TIMEOUT_MS: "500" })).toEqual({
      url: "http://h/v1/chat/completions",
      model: "qwen2.5:3b",
      timeoutMs: 500,
    });
    expect(llmConfigFrom({ MEDIAGEN_LOCAL_LLM_URL: "http://h", MEDIAGEN_LOCAL_LLM_TIMEOUT_MS: "soon" })?.timeoutMs).toBe(LLM_TIMEOUT_MS);
  });
});

describe("the model's answer as a script", () => {
  it("removes reasoning, markdown, headings, list marks, speaker labels and directions; ends sentences", () => {
    const answer = [
      "<think>The user wants a script.</think>",
      "# Night trains",
      "**Narrator:** Night trains are back [upbeat music]",
      "",
      "- They are *greener* than planes",
      "1. They save a hotel night",
      "",
      "(Pause) Book early!",
    ].join("\n");
    expect(cleanLlmScript(answer, 20)).toBe("Night trains are back.\n\nThey are greener than planes. They save a hotel night.\n\nBook early!");
  });

  it("cuts an answer far over the target after the sentence closest to it", () => {
    const sentence = "This sentence here has exactly seven words.";
    const answer = Array.from({ length: 20 }, () => sentence).join(" ");
    const cut = cleanLlmScript(answer, 30);
    expect(countWords(cut)).toBe(28);
    expect(cleanLlmScript(Array.from({ length: 5 }, () => sentence).join(" "), 30)).toHaveLength(sentence.length * 5 + 4);
  });
});

describe("writing with the model", () => {
  type Mode = "ok" | "error" | "slow" | "garbage" | "short" | "no-content";
  let mode: Mode = "ok";
  let answer = "";
  const requests: { url: string; body: Record<string, unknown> }[] = [];
  let server: http.Server;
  let llmUrl: string;
  let pagesBase: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === "/page") {
        res.writeHead(200, { "content-type": "text/html" }).end(`<title>Trains</title><p>Sleeper trains link Vienna and Paris three times a week.</p><img src="/t.jpg">`);
        return;
      }
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => {
        requests.push({ url: req.url ?? "", body: JSON.parse(data) as Record<string, unknown> });
        const reply = (content: unknown) =>
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content } }] }));
        if (mode === "ok") reply(answer);
        else if (mode === "short") reply("Too short.");
        else if (mode === "no-content") reply(null);
        else if (mode === "garbage") res.writeHead(200, { "content-type": "text/html" }).end("<html>proxy error</html>");
        else if (mode === "error") res.writeHead(500, { "content-type": "application/json" }).end('{"error":"model not loaded"}');
        else setTimeout(() => reply(answer), 3_000);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    llmUrl = `http://127.0.0.1:${port}/v1`;
    pagesBase = `http://127.0.0.1:${port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    mode = "ok";
    requests.length = 0;
    answer = Array.from({ length: 9 }, (_, i) => `Night trains are back on route ${i + 1}, and travellers love them.`).join(" ");
  });

  const plan = (urls: string[] = []) => ({ prompt: "Write a script about night trains.", duration: 30, urls, webSearch: false });
  const env = (extra: Record<string, string> = {}) => ({ MEDIAGEN_LOCAL_LLM_URL: llmUrl, MEDIAGEN_LOCAL_LLM_TIMEOUT_MS: "1000", ...extra });

  it("asks the chat completions endpoint with the brief and the pages' text, and returns its script", async () => {
    const logs: string[] = [];
    const res = await composeScript(plan([`${pagesBase}/page`]), {
      fetch: { allowPrivateNetwork: true },
      env: env({ MEDIAGEN_LOCAL_LLM_MODEL: "tiny" }),
      log: (l) => logs.push(l),
    });
    expect(res).toEqual({ script: answer, extractedImages: [`${pagesBase}/t.jpg`], writer: "llm", skipped: [] });
    expect(logs).toEqual([]);
    expect(requests).toHaveLength(1);
    const { url, body } = requests[0]!;
    expect(url).toBe("/v1/chat/completions");
    expect(body).toMatchObject({ model: "tiny", temperature: 0, stream: false });
    const messages = body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toMatch(/about 90 words for 30 seconds/);
    expect(messages[1]!.content).toContain("Request: Write a script about night trains.");
    expect(messages[1]!.content).toContain("Sleeper trains link Vienna and Paris three times a week.");
  });

  it("sends no model when none is configured", async () => {
    await composeScript(plan(), { fetch: { allowPrivateNetwork: true }, env: env() });
    expect(requests[0]!.body).not.toHaveProperty("model");
  });

  it.each<[Mode, RegExp]>([
    ["error", /answered HTTP 500/],
    ["garbage", /without JSON/],
    ["no-content", /without choices\[0\]\.message\.content/],
    ["short", /wrote 2 words for a target of 90/],
    ["slow", /no answer from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 1000 ms/],
  ])("falls back to the extractive writer when the model fails (%s)", async (m, why) => {
    mode = m;
    const logs: string[] = [];
    const started = Date.now();
    const res = await composeScript(plan(), { fetch: { allowPrivateNetwork: true }, env: env(), log: (l) => logs.push(l) });
    expect(res.writer).toBe("extractive");
    expect(res.script).toBe(writeExtractive({ prompt: plan().prompt, duration: 30, pages: [] }));
    expect(logs).toEqual([expect.stringMatching(why)]);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("falls back when the server cannot be reached or the URL is malformed", async () => {
    for (const url of ["http://127.0.0.1:1/v1", "not a url"]) {
      const logs: string[] = [];
      const res = await composeScript(plan(), { fetch: { allowPrivateNetwork: true }, env: { MEDIAGEN_LOCAL_LLM_URL: url }, log: (l) => logs.push(l) });
      expect(res.writer).toBe("extractive");
      expect(logs).toHaveLength(1);
    }
  });

  it("is not asked at all without MEDIAGEN_LOCAL_LLM_URL", async () => {
    const res = await composeScript(plan(), { fetch: { allowPrivateNetwork: true }, env: {} });
    expect(res.writer).toBe("extractive");
    expect(requests).toHaveLength(0);
  });
});
