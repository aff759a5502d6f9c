/**
 * The `price` tool's figures and the session budget (--max-credits), in process against a real local
 * instance: each start is priced as the spec says, and where the local instance can debit it, the
 * price is exactly what the start then debits. The budget reserves, settles and releases in exact
 * thousandths and refuses with what is left.
 */
import { describe, expect, it } from "vitest";
import { priceOf } from "../../src/mcp/price.js";
import { Budget, BudgetError } from "../../src/mcp/budget.js";
import { opTools } from "../../src/mcp/tools.js";
import type { OpName } from "../../src/engine/engine.js";
import { openTestInstance } from "../helpers/local.js";

describe("price", () => {
  const t = openTestInstance();
  const engine = t.api;
  const balance = () => t.instance.spaceForKey(t.key)!.credits;

  /** Prices `input`, makes the start, and returns [price, what the balance lost]. */
  async function priceThenStart(op: OpName, input: Record<string, unknown>): Promise<[number | null, number]> {
    const p = await priceOf(engine, op, input);
    const before = balance();
    await engine.call(op, input as never);
    return [p.credits, Math.round((before - balance()) * 1000) / 1000];
  }

  it("is what the local instance debits: asset, script, video generation, avatar create and edit", async () => {
    expect(await priceThenStart("assetStart", { type: "image", model: "imgA-4", prompt: "a fox", generation_count: 2 })).toEqual([2, 2]);
    const [scriptPrice, scriptDebit] = await priceThenStart("scriptGenerate", { prompt: "why cats purr", duration: 90, urls: [] });
    expect(scriptPrice).toBe(0.2);
    expect(scriptDebit).toBe(0.2);
    const [genPrice, genDebit] = await priceThenStart("generationStart", { prompt: "waves at dusk", duration: 60 });
    expect(genPrice).toBe(15); // ceil((60 + 15) / 30) = 3 blocks of 5
    expect(genDebit).toBe(15);
    const [createPrice, createDebit] = await priceThenStart("avatarCreate", { prompt: "a barista", resolution: "4K" });
    expect([createPrice, createDebit]).toEqual([4, 4]);
  });

  it("follows the spec's formulas where the price is known before the start, and says when it is not", async () => {
    const p = (op: OpName, input: Record<string, unknown>) => priceOf(engine, op, input);
    expect((await p("scriptGenerate", { prompt: "x", duration: 61, webSearch: true, urls: ["https://a.example", "https://b.example"] })).credits).toBe(0.5);
    expect((await p("scriptGenerate", { prompt: "x" })).credits).toBe(0.1);
    expect((await p("avatarCreate", { images: ["https://a.example/a.png"] })).credits).toBe(0);
    expect((await p("avatarEdit", { avatar_id: "a", look_id: "l", prompt: "hat" })).credits).toBe(2);
    expect((await p("exportStart", { video_id: "v", format: "square" })).credits).toBe(0);
    expect((await p("exportStart", { video_id: "v", format: "custom", width: 1920, height: 1080 })).credits).toBe(0);
    for (const input of [
      { video_id: "v" },
      { video_id: "v", format: "custom", width: 3840, height: 2160 },
      { video_id: "v", format: "vertical", avatar_model: "ultra" },
    ]) {
      const unknown = await p("exportStart", input);
      expect(unknown.credits, JSON.stringify(input)).toBeNull();
      expect(unknown.basis.length).toBeGreaterThan(10);
    }
    expect((await p("generationStart", { voice_url: "https://a.example/a.mp3" })).credits).toBeNull();
    expect((await p("videoDuplicate", { video_id: "v" })).credits).toBe(0);
    expect((await p("folderCreate", { name: "x" })).credits).toBe(0);
    expect((await p("assetStatus", { assetId: "x" })).credits).toBe(0);
  });

  it("every start of the operation table has a pricing rule (a new one is refused under --max-credits until it gets one)", async () => {
    const starts = opTools().filter((x) => !x.read);
    expect(starts.length).toBeGreaterThan(5);
    for (const s of starts) {
      const input =
        s.op === "assetStart" ? { type: "image", model: "imgA-4", prompt: "x" } : s.op === "exportStart" ? { format: "vertical" } : { prompt: "x", duration: 30 };
      const price = await priceOf(engine, s.op, input);
      expect(price.basis, s.op).not.toMatch(/no pricing rule/);
    }
  });
});

describe("the session budget", () => {
  const known = (credits: number) => ({ credits, exact: true, basis: "test" });

  it("reserves while a start is in flight, settles on what the service debited, releases on a refusal", () => {
    const b = new Budget(1);
    const first = b.reserve("a", known(0.3));
    const second = b.reserve("b", known(0.3));
    expect(b.remaining).toBe(0.4);
    // The third would pass only if the two in flight were not counted.
    expect(() => b.reserve("c", known(0.5))).toThrow(BudgetError);
    first.settle(0.2); // the service debited less than the estimate
    second.release(); // refused: nothing debited
    second.release(); // once only
    expect(b.spent).toBe(0.2);
    expect(b.remaining).toBe(0.8);
    const third = b.reserve("c", known(0.8));
    third.settle(undefined);
    expect(b.remaining).toBe(0);
    expect(() => b.reserve("free", known(0))).not.toThrow();
  });

  it("refuses past the cap, and a price that is not known, with what is left", () => {
    const b = new Budget(5);
    b.reserve("a", known(1.5)).settle(undefined);
    try {
      b.reserve("asset_start", known(32));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(BudgetError);
      expect((e as BudgetError).code).toBe("over_max_credits");
      expect((e as BudgetError).details).toEqual({ max_credits: 5, spent: 1.5, remaining: 3.5, price: 32 });
      expect((e as BudgetError).message).toContain("3.5 credits left");
    }
    expect(() => b.reserve("export_start", { credits: null, exact: false, basis: "give format" })).toThrow(/not known before it starts \(give format\)/);
  });

  it("without a cap, counts what is spent and never refuses", () => {
    const b = new Budget(undefined);
    b.reserve("a", { credits: null, exact: false, basis: "" }).settle(7);
    b.reserve("b", known(1000)).settle(undefined);
    expect(b.spent).toBe(1007);
    expect(b.remaining).toBeUndefined();
  });
});
