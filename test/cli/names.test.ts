/**
 * Names where ids are asked (issue 26): `--voice Emma`, `--avatar "Maya kitchen"` resolve on the
 * target (case-insensitive), near misses get a did-you-mean, ambiguous names a list, ids pass
 * untouched (without asking the target); a prompt-based video with a look and no voice gets a voice
 * of the look's gender and the prompt's language, said; `avatar edit` reads the avatar from --look;
 * flag typos by the service's field name get a suggestion; `local ledger` without a space; `credits`;
 * articles and plurals; the README tour says each command once.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, run } from "./helpers.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { withCatalogPictures } from "../helpers/catalog-pictures.js";
import type { Engine } from "../../src/engine/engine.js";
import { counted, withArticle } from "../../src/engine/words.js";

let t: TestInstance;
let calls: { op: string; input: Record<string, unknown> }[];

/** An engine on the test instance that records every call. */
async function recording(): Promise<Engine> {
  const e = t.engine(t.key);
  const call = e.call.bind(e);
  e.call = ((op: string, input: Record<string, unknown>, opts: unknown) => {
    calls.push({ op, input });
    return call(op as never, input as never, opts as never);
  }) as typeof e.call;
  return e as unknown as Engine;
}
const mg = (args: string[]) => {
  calls = [];
  return run(args, { home: t.home, engine: recording });
};
const started = () => calls.find((c) => c.op === "generationStart")?.input;

beforeAll(async () => {
  t = openTestInstance({ worker: "none" });
  // The catalog's pictures drawn once per test process, not by the first look found by name.
  await withCatalogPictures(t.home);
});
afterAll(() => t.close());

describe("generate --voice/--avatar by name", () => {
  it("resolves a unique name, case-insensitive, and says which it used", async () => {
    const r = await mg(["generate", "--script", "Hello there.", "--voice", "emma", "--avatar", "Maya kitchen"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(started()).toMatchObject({ voice_id: "vc_emma", avatar_id: "lk_maya_kitchen" });
    expect(r.stderr).toContain("Voice: Emma (vc_emma)");
    expect(r.stderr).toContain("Look: Maya in the kitchen (lk_maya_kitchen)");
  });

  it("ids keep working, without a list request", async () => {
    const r = await mg(["generate", "--script", "Hello there.", "--voice", "vc_noah", "--avatar", "lk_james_car"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(started()).toMatchObject({ voice_id: "vc_noah", avatar_id: "lk_james_car" });
    expect(calls.map((c) => c.op)).not.toContain("voiceList");
    expect(calls.map((c) => c.op)).not.toContain("avatarList");
  });

  it("a near miss that could be an id goes to the service, whose refusal gets a did-you-mean; a name with spaces that names nothing is refused here; an ambiguous name a list (exit 2)", async () => {
    const spent = () => t.db.prepare("SELECT COUNT(*) AS n FROM ledger WHERE kind = 'debit'").get() as { n: number };
    const before = spent().n;
    const miss = await mg(["generate", "--script", "Hi.", "--voice", "Emmma", "--json"]);
    expect(miss.exitCode).toBe(2);
    expect(miss.errorLine()).toMatchObject({ code: "INVALID_VOICE_ID", field: "voice_id" });
    expect(miss.stderr).toContain("Did you mean Emma (vc_emma)?");
    expect(started()).toMatchObject({ voice_id: "Emmma" });
    expect(spent().n).toBe(before);
    const look = await mg(["generate", "--script", "Hi.", "--voice", "Emma", "--avatar", "Maya kitchn", "--json"]);
    expect(look.exitCode).toBe(2);
    expect(look.errorLine()).toMatchObject({ code: "unknown_name" });
    expect(look.stderr).toContain('--avatar: no look named "Maya kitchn"; did you mean');
    expect(look.stderr).toContain("(lk_maya_kitchen)");
    expect(started()).toBeUndefined();
    const many = await mg(["generate", "--script", "Hi.", "--voice", "Emma", "--avatar", "maya"]);
    expect(many.exitCode).toBe(2);
    expect(many.stderr).toMatch(/--avatar: "maya" names 3 looks: .*\(lk_maya_kitchen\).*\(lk_maya_office\).*\(lk_maya_beach\)/);
    expect(started()).toBeUndefined();
  });
});

describe("generate --prompt --avatar without a voice", () => {
  it("picks a voice of the look's gender in the prompt's language, and says which and why", async () => {
    const en = await mg(["generate", "--prompt", "why cats purr", "--duration", "10", "--avatar", "lk_robert_kitchen"]);
    expect(en.exitCode, en.stderr).toBe(0);
    expect(started()).toMatchObject({ avatar_id: "lk_robert_kitchen", voice_id: "vc_noah" });
    expect(en.stderr).toContain("Voice: Noah (vc_noah), a male en voice for Robert in the kitchen (male); --voice picks another.");
    const fr = await mg(["generate", "--prompt", "pourquoi les chats ronronnent", "--duration", "10", "--avatar", "lk_robert_kitchen"]);
    expect(fr.exitCode, fr.stderr).toBe(0);
    expect(started()).toMatchObject({ voice_id: "vc_louis" });
  });
});

describe("other names and words", () => {
  it("avatar edit takes the avatar from --look", async () => {
    const r = await mg(["avatar", "edit", "--look", "lk_maya_kitchen", "--prompt", "in a bakery", "--json"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(calls.find((c) => c.op === "avatarEdit")?.input).toMatchObject({ avatar_id: "av_maya", look_id: "lk_maya_kitchen" });
  });

  it("a flag named after the service's field gets the flag as a suggestion: --generation-count → --count", async () => {
    const r = await run(["asset", "start", "--generation-count", "2"], { home: t.home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("unknown option '--generation-count'");
    expect(r.stderr).toContain("(Did you mean --count?)");
  });

  it("local ledger without a space shows the default space's; credits shows the balance", async () => {
    const ledger = await run(["local", "ledger"], { home: t.home });
    expect(ledger.exitCode, ledger.stderr).toBe(0);
    expect(ledger.stdout).toMatch(/grant\s+1000/);
    expect(ledger.stderr).toMatch(/^Ledger of space sp_\w+ \(default\)/m);
    const credits = await run(["credits", "--json"], { home: t.home });
    expect(credits.exitCode, credits.stderr).toBe(0);
    expect(credits.json()).toMatchObject({ balance: expect.any(Number) });
    expect((await run(["credits"], { home: t.home })).stdout).toMatch(/^balance\s+\d+(\.\d+)? credits$/m);
  });

  it("articles and plurals: an image model, 1 request", async () => {
    const r = await mg(["asset", "start", "--type", "video", "--model", "imgA-4-fast", "--prompt", "x"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("imgA-4-fast is an image model");
    expect([withArticle("image"), withArticle("video"), withArticle("export"), withArticle("user"), withArticle("ads")]).toEqual([
      "an image",
      "a video",
      "an export",
      "a user",
      "an ads",
    ]);
    expect([counted(1, "request"), counted(2, "request"), counted(0, "request")]).toEqual(["1 request", "2 requests", "0 requests"]);
  });

  it("the README tour says each command once", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const tour = /## A tour\s+```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const commands = tour
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => l.replace(/\s+#.*$/, "").trim());
    expect(commands.filter((c, i) => commands.indexOf(c) !== i)).toEqual([]);
    expect(commands.filter((c) => /^npx mediagen (history|export)\b/.test(c))).toHaveLength(2);
  });
});
