/**
 * Errors speak in flags (issue 11): a service error about a request field names the flag that
 * filled it; an unknown model points to `asset models`; a shortage of credits says how to add them
 * on each target; one `Error:` prefix; `--language` takes tags and names.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localKey, newHome, run } from "./helpers.js";

let home: string;
beforeAll(() => {
  home = newHome();
});

const errorLines = (stderr: string) => stderr.split("\n").filter((l) => /^error:/i.test(l));

describe("service errors in the words of the command line", () => {
  it("--ref nofile.png: the flag and the value, not references[0].url", async () => {
    const r = await run(["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "x", "--ref", "nofile.png", "--json"], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^Error: --ref: file not found: nofile\.png \(code invalid_value\)$/m);
    expect(r.stderr.split("\n")[0]).not.toContain("references[0]");
    // The JSON line keeps the service's field, and adds the flag.
    expect(r.errorLine()).toMatchObject({ status: 400, field: "references[0].url", flag: "--ref", message: "--ref: file not found: nofile.png" });
  });

  it("a slot flag and a choice: --first-frame, --aspect-ratio with the value given", async () => {
    const slot = await run(["asset", "start", "--type", "video", "--model", "vidA-3-frames", "--prompt", "x", "--first-frame", "day.png", "--last-frame", "night.png"], {
      home,
    });
    expect(slot.stderr).toMatch(/^Error: --first-frame: file not found: day\.png/m);
    const ratio = await run(["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "x", "--aspect-ratio", "3:3"], { home });
    expect(ratio.stderr).toMatch(/^Error: --aspect-ratio: .*16:9.*\(got 3:3\)/m);
  });

  it("a field from --body is not blamed on a flag", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const file = path.join(home, "body.json");
    fs.writeFileSync(file, JSON.stringify({ type: "video", model: "vidA-3", prompt: "x", references: [{ url: "nofile.png" }] }));
    const r = await run(["asset", "start", "--body", file], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("references[0].url");
    expect(r.stderr).not.toContain("--ref");
  });

  it("a field without the service naming it: `webhook_url must be …` is --webhook-url", async () => {
    const r = await run(["avatar", "create", "--prompt", "x", "--webhook-url", "nope"], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^Error: --webhook-url: must be a valid http\(s\) URL \(got nope\)/m);
  });

  it("generate: --voice, not voice_id", async () => {
    const r = await run(["generate", "--script", "hello there", "--voice", "vc_nope", "--avatar", "lk_nope"], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^Error: --voice: /m);
    expect(r.stderr).not.toContain("field voice_id");
  });

  it("an unknown model points to `mediagen asset models` (start, price, model)", async () => {
    for (const args of [
      ["asset", "start", "--type", "image", "--model", "no-such-model", "--prompt", "x"],
      ["asset", "price", "--model", "no-such-model"],
      ["asset", "model", "no-such-model"],
    ]) {
      const r = await run(args, { home });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toContain("mediagen asset models");
    }
  });

  it("insufficient credits on the local target: the command that adds them, with the space and the amount", async () => {
    const { api_key, space_id } = await localKey("PRO", 1, home);
    const r = await run(["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "x"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain(`mediagen local credits add ${space_id} 31`);
    const look = await run(["avatar", "create", "--prompt", "x", "--resolution", "4K"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(look.exitCode).toBe(5);
    expect(look.stderr).toContain(`mediagen local credits add ${space_id} 3`);
  });

  it("one `Error:` prefix, commander's usage errors included", async () => {
    for (const args of [
      ["asset", "start", "--bogus"],
      ["asset", "status"],
      ["folder", "list", "--type", "x"],
    ]) {
      const r = await run(args, { home });
      expect(r.exitCode).toBe(2);
      const lines = errorLines(r.stderr);
      expect(lines.length, r.stderr).toBeGreaterThan(0);
      for (const l of lines) expect(l).toMatch(/^Error: /);
    }
  });
});

describe("insufficient credits on the hosted target", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(402, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "Insufficient credits", required: 32, available: 4 }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("says to add them in the dashboard (no local command)", async () => {
    const r = await run(["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "x", "--target", "hosted", "--base-url", base], {
      home,
      env: { MEDIAGEN_API_KEY: "mg_live_" + "a".repeat(64), HTTP_PROXY: undefined, http_proxy: undefined },
    });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/dashboard/);
    expect(r.stderr).toContain("28");
    expect(r.stderr).not.toContain("local credits add");
  });
});

describe("--language as people write it", () => {
  it.each([["fr-FR"], ["French"], ["français"], ["FR"], ["fr_FR"]])("%s lists the French voices", async (lang) => {
    const r = await run(["voice", "list", "--language", lang, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const voices = r.json<{ language: string }[]>();
    expect(voices.length).toBeGreaterThan(0);
    expect(new Set(voices.map((v) => v.language))).toEqual(new Set(["fr"]));
  });

  it("a word that is no language: exit 2 with the valid codes", async () => {
    const r = await run(["voice", "resources", "--language", "Klingon"], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^Error: --language: "Klingon" is not a language; use a code such as .*\ben\b.*\bfr\b/m);
  });

  it("a language without voices says which languages have some", async () => {
    const r = await run(["voice", "list", "--language", "ja"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Languages with voices: .*en.*fr/);
  });
});
