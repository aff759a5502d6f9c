/**
 * The contract is used, not only declared: the harness parses every successful response with its
 * operation's response schema. These walk every catalog record (each model's summary and detail,
 * each catalog avatar and look, each voice) through both targets, so no record escapes that check.
 */
import { describe, expect, it } from "vitest";
import { BaseEngine, type CallOptions, type OpName, type OpRequest, type OpResponse } from "../../src/engine/engine.js";
import { ContractCheckedEngine, ContractDriftError, forBothTargets } from "./harness.js";

forBothTargets("contract: every catalog record matches its schema", (t) => {
  it("each model: the summary in the list and the detail", async () => {
    const engine = t.engine({ plan: "ENTREPRISE" });
    const list = await engine.assetModels();
    expect(list.models.length).toBeGreaterThan(10);
    for (const m of list.models) expect((await engine.assetModel({ name: m.name })).name).toBe(m.name);
    // Filtered listings leave type/provider out of the items: still the contract's shape.
    await engine.assetModels({ type: "image" });
    await engine.assetModels({ type: "video", provider: list.models.find((m) => m.type === "video")!.provider! });
  });

  it("each catalog avatar and each of its looks", async () => {
    const engine = t.engine({ plan: "ENTREPRISE" });
    const looks = await engine.avatarList({ onlyPublic: true });
    expect(looks.length).toBeGreaterThan(0);
    for (const avatarId of new Set(looks.map((l) => l.avatar_id!))) {
      const a = await engine.avatarGet({ avatar_id: avatarId });
      for (const l of a.looks!) await engine.avatarLook({ avatar_id: avatarId, look_id: l.id });
    }
  });

  it("each voice, listed, by id, and as a resource", async () => {
    const engine = t.engine({ plan: "ENTREPRISE" });
    const voices = await engine.voiceList();
    for (const v of voices) await engine.voiceGet({ id: v.id });
    expect((await engine.resourceVoices()).length).toBe(voices.length);
  });
});

describe("ContractCheckedEngine", () => {
  class Answering extends BaseEngine {
    readonly target = "local" as const;
    constructor(private readonly body: unknown) {
      super();
    }
    async call<K extends OpName>(_op: K, _input: OpRequest<K>, _opts?: CallOptions): Promise<OpResponse<K>> {
      return this.body as OpResponse<K>;
    }
  }

  it("fails a call whose response drifted from the schema, naming the field", async () => {
    // Only what a command needs is required (issue 34): a folder's id.
    const engine = new ContractCheckedEngine(new Answering({ name: "x", type: "assets", parent_folder_id: null, created_at: "2025-01-01T00:00:00Z" }));
    await expect(engine.folderCreate({ name: "x" })).rejects.toThrow(ContractDriftError);
    await expect(engine.folderCreate({ name: "x" })).rejects.toThrow(/folderCreate answered a body its response schema refuses: id is missing/);
  });

  it("is strict about enum values (a status outside the contract is drift)", async () => {
    const folder = { id: "f1", name: "x", type: "images", parent_folder_id: null, created_at: "2025-01-01T00:00:00Z" };
    await expect(new ContractCheckedEngine(new Answering(folder)).folderCreate({ name: "x" })).rejects.toThrow(/type should be one of "assets", "videos", got "images"/);
  });

  it("strict (the local target's check) names the drift the tolerant schema lets pass: a missing field, one the spec does not give", async () => {
    const folder = { id: "6653b8e1f2a4c5d6e7f80aaa", name: "x", type: "assets", parent_folder_id: null, extra: 1 };
    expect(await new ContractCheckedEngine(new Answering(folder)).folderCreate({ name: "x" })).toBe(folder);
    const strict = new ContractCheckedEngine(new Answering(folder), { strict: true });
    await expect(strict.folderCreate({ name: "x" })).rejects.toThrow(
      /folderCreate answered a body the spec's record of it refuses: created_at is missing; body has a field the spec does not give: "extra"/,
    );
    const { extra: _, ...conforming } = { ...folder, created_at: "2025-01-01T00:00:00Z" };
    expect(await new ContractCheckedEngine(new Answering(conforming), { strict: true }).folderCreate({ name: "x" })).toBe(conforming);
  });

  it("passes a conforming body through unchanged", async () => {
    const folder = { id: "f1", name: "x", type: "assets", parent_folder_id: null, created_at: "2025-01-01T00:00:00Z", extra: 1 };
    expect(await new ContractCheckedEngine(new Answering(folder)).folderCreate({ name: "x" })).toBe(folder);
  });
});
