/** The local bounds on free text the spec leaves open (src/contract/limits.ts), on both targets. */
import { expect, it } from "vitest";
import { NAME_MAX, PROMPT_MAX } from "../../src/contract/limits.js";
import { apiError, forBothTargets } from "./harness.js";

forBothTargets("text limits", (t) => {
  it(`folder names: ${NAME_MAX} characters pass, one more is invalid_value on name and nothing is created`, async () => {
    const engine = t.engine();
    const ok = await engine.folderCreate({ name: "n".repeat(NAME_MAX) });
    expect(ok.name).toHaveLength(NAME_MAX);
    const err = await apiError(engine.folderCreate({ name: "n".repeat(NAME_MAX + 1) }));
    expect([err.status, err.code, err.field]).toEqual([400, "invalid_value", "name"]);
    expect((await engine.folderList()).folders).toHaveLength(1);
  });

  /** An engine for a fresh space, and that space's balance. */
  const space = () => {
    const key = t.newKey();
    return { engine: t.engineFor(key), credits: () => t.instance.spaceForKey(key)!.credits };
  };

  it("avatar create: an over-long name, place or prompt is INVALID_VALUE naming that field, before any debit", async () => {
    const { engine, credits } = space();
    const before = credits();
    for (const [field, value] of [
      ["name", "n".repeat(NAME_MAX + 1)],
      ["place", "p".repeat(NAME_MAX + 1)],
      ["prompt", "a friendly barista ".repeat(600).slice(0, PROMPT_MAX + 1)],
    ] as const) {
      const body = { prompt: "a friendly barista", [field]: value };
      const err = await apiError(engine.avatarCreate(body));
      // Avatar errors use the `{error, code}` shape, which has no field: the message names it.
      expect([field, err.status, err.code]).toEqual([field, 400, "INVALID_VALUE"]);
      expect(err.message).toContain(`${field} is longer than`);
    }
    expect(credits()).toBe(before);
  });

  it(`asset start: a model with no prompt cap of its own takes at most ${PROMPT_MAX} characters`, async () => {
    const { engine, credits } = space();
    const before = credits();
    const err = await apiError(engine.assetStart({ type: "image", model: "imgA-4", prompt: "x".repeat(PROMPT_MAX + 1) }));
    expect([err.status, err.code, err.field]).toEqual([400, "invalid_value", "prompt"]);
    expect(credits()).toBe(before);
  });
});

forBothTargets("ill-formed text", (t) => {
  it("refuses a lone surrogate anywhere in a request with invalid_value naming where, and stores nothing", async () => {
    const engine = t.engine();
    const folder = await apiError(engine.folderCreate({ name: "fox \ud800 den" }));
    expect([folder.status, folder.code, folder.field]).toEqual([400, "invalid_value", "name"]);
    const nested = await apiError(engine.assetStart({ type: "image", model: "imgA-4", prompt: "ok", references: [{ url: "https://example.com/a\udc00.png" }] }));
    expect([nested.status, nested.code, nested.field]).toEqual([400, "invalid_value", "references[0].url"]);
    expect((await engine.folderList()).folders).toEqual([]);
    // A well-formed astral character (a surrogate pair) is fine and comes back as sent.
    const ok = await engine.folderCreate({ name: "fox 🦊" });
    expect(ok.name).toBe("fox 🦊");
  });
});
