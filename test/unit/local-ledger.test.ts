import { afterEach, describe, expect, test } from "vitest";
import { LocalAdminError } from "../../src/local/instance.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

const open: TestInstance[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});
function setup() {
  const t = openTestInstance({ worker: "none" });
  open.push(t);
  const space = t.createSpace({ name: "ledger", plan: "PRO", credits: 10 }).space;
  return { t, id: space.id };
}

describe("ledger", () => {
  test("debit up to the balance, never below zero", () => {
    const { t, id } = setup();
    expect(t.tx(() => t.ledger.debit(id, 9_900, "job_a"))).toBe(true);
    expect(t.ledger.balance(id)).toBe(100);
    expect(t.tx(() => t.ledger.debit(id, 101, "job_b"))).toBe(false);
    expect(t.ledger.balance(id)).toBe(100);
    expect(t.tx(() => t.ledger.debit(id, 100, "job_c"))).toBe(true);
    expect(t.ledger.balance(id)).toBe(0);
    expect(t.getSpace(id)?.credits).toBe(0);
    expect(t.ledger(id).map((r) => [r.kind, r.amount, r.balance_after, r.ref])).toEqual([
      ["grant", 10, 10, null],
      ["debit", -9.9, 0.1, "job_a"],
      ["debit", -0.1, 0, "job_c"],
    ]);
  });

  test("fractional credits are exact (0.1 × 30 = 3)", () => {
    const { t, id } = setup();
    for (let i = 0; i < 30; i++) t.ledger.debit(id, 100, `img_${i}`);
    expect(t.getSpace(id)?.credits).toBe(7);
    expect(t.verifyLedger().find((c) => c.space_id === id)).toEqual({ space_id: id, balance: 7, ledger_sum: 7, ok: true });
  });

  test("a refund happens once per ref", () => {
    const { t, id } = setup();
    t.ledger.debit(id, 2_000, "job_r");
    expect(t.ledger.refund(id, 2_000, "job_r", "generation failed")).toBe(true);
    expect(t.ledger.refund(id, 2_000, "job_r", "again")).toBe(false);
    expect(t.ledger.balance(id)).toBe(10_000);
    expect(t.ledger(id).filter((r) => r.kind === "refund")).toHaveLength(1);
    // the unique index holds even if someone bypasses the check
    expect(() =>
      t.db.prepare("INSERT INTO ledger (space_id, amount_milli, balance_after_milli, kind, ref, created_at) VALUES (?, 1, 1, 'refund', 'job_r', 'x')").run(id),
    ).toThrow(/UNIQUE/);
  });

  test("the ledger is append-only and the balance column cannot go negative", () => {
    const { t, id } = setup();
    expect(() => t.db.prepare("UPDATE ledger SET amount_milli = 0").run()).toThrow(/append-only/);
    expect(() => t.db.prepare("DELETE FROM ledger").run()).toThrow(/append-only/);
    expect(() => t.db.prepare("UPDATE spaces SET balance_milli = -1 WHERE id = ?").run(id)).toThrow(/CHECK/);
  });

  test("verify spots a balance that does not match its rows", () => {
    const { t, id } = setup();
    expect(t.verifyLedger().every((c) => c.ok)).toBe(true);
    t.db.prepare("UPDATE spaces SET balance_milli = balance_milli + 1 WHERE id = ?").run(id);
    const bad = t.verifyLedger().find((c) => c.space_id === id)!;
    expect(bad).toEqual({ space_id: id, balance: 10.001, ledger_sum: 10, ok: false });
  });

  test("amounts must be whole non-negative millicredits", () => {
    const { t, id } = setup();
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() => t.ledger.debit(id, bad, "x")).toThrow(RangeError);
      expect(() => t.ledger.grant(id, bad)).toThrow(RangeError);
    }
  });

  test("a debit inside a rolled-back transaction leaves nothing", () => {
    const { t, id } = setup();
    expect(() =>
      t.tx(() => {
        t.ledger.debit(id, 1_000, "job_x");
        throw new Error("validation failed after the debit");
      }),
    ).toThrow("validation failed");
    expect(t.ledger.balance(id)).toBe(10_000);
    expect(t.ledger(id)).toHaveLength(1);
  });
});

describe("admin", () => {
  test("addCredits writes a grant and returns the space", () => {
    const { t, id } = setup();
    expect(t.addCredits(id, 2.5, "top-up")).toMatchObject({ id, credits: 12.5 });
    expect(t.ledger(id).at(-1)).toMatchObject({ kind: "grant", amount: 2.5, balance_after: 12.5, note: "top-up" });
  });

  test.each([
    ["unknown space", () => ["sp_nope", 1], "not_found"],
    ["zero credits", (id: string) => [id, 0], "invalid"],
    ["negative credits", (id: string) => [id, -5], "invalid"],
  ] as const)("addCredits: %s → %s", (_n, args, kind) => {
    const { t, id } = setup();
    const [sid, credits] = args(id) as [string, number];
    try {
      t.addCredits(sid, credits);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(LocalAdminError);
      expect((e as LocalAdminError).kind).toBe(kind);
    }
  });

  test("ledger of an unknown space is not_found", () => {
    const { t } = setup();
    expect(() => t.ledger("sp_nope")).toThrow(LocalAdminError);
  });

  test("listSpaces shows every space in creation order with its key count", () => {
    const { t, id } = setup();
    const third = t.createSpace({ plan: "free", credits: 0.5 });
    expect(t.listSpaces().map((s) => [s.id, s.plan, s.credits, s.is_default, s.keys])).toEqual([
      [t.spaceForKey(t.key)!.id, "PRO", 1000, true, 1],
      [id, "PRO", 10, false, 1],
      [third.space.id, "free", 0.5, false, 1],
    ]);
    expect(third.space.name).toMatch(/^space-/);
  });
});
