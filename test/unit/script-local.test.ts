/**
 * The handler's bookkeeping on the local instance, in process: the row and the debit together,
 * failures refunded exactly once (also when the store refuses the final write), requests that died
 * mid-way refunded by the next one, concurrent requests never overdrawing, the local model recorded.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OffsetClock } from "../scenarios/harness.js";
import { openTestInstance } from "../helpers/local.js";
import { ApiError } from "../../src/engine/errors.js";
import { sweepDeadScripts } from "../../src/features/script/emulator/local.js";

function setup(credits = 1000) {
  const clock = new OffsetClock();
  const inst = openTestInstance({ clock });
  const { api_key, space } = inst.createSpace({ plan: "PRO", credits });
  const engine = inst.engine(api_key);
  const ledger = () =>
    inst.db.prepare("SELECT kind, amount_milli AS amount, ref FROM ledger WHERE space_id = ? AND kind <> 'grant' ORDER BY id").all(space.id) as {
      kind: string;
      amount: number;
      ref: string;
    }[];
  const rows = () => inst.db.prepare("SELECT id, status, writer, error_code FROM scripts WHERE space_id = ? ORDER BY created_at, rowid").all(space.id);
  return { inst, clock, engine, spaceId: space.id, ledger, rows, balance: () => inst.ledger.balance(space.id) };
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

describe("script requests on the local instance", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ["MEDIAGEN_LOCAL_LLM_URL", "MEDIAGEN_LOCAL_LLM_MODEL", "MEDIAGEN_LOCAL_LLM_TIMEOUT_MS"]) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it("records each request with its debit; the ref of the debit is the row", async () => {
    const s = setup();
    await s.engine.scriptGenerate({ prompt: "Night trains.", duration: 61 });
    const [row] = s.rows() as { id: string; status: string; writer: string }[];
    expect(row).toMatchObject({ status: "done", writer: "extractive" });
    expect(s.ledger()).toEqual([{ kind: "debit", amount: -200, ref: row!.id }]);
    const stored = s.inst.db.prepare("SELECT prompt, duration, urls, web_search, cost_milli FROM scripts WHERE id = ?").get(row!.id);
    expect(stored).toEqual({ prompt: "Night trains.", duration: 61, urls: "[]", web_search: 0, cost_milli: 200 });
  });

  it("refunds once when the store refuses to record the finished script", async () => {
    const s = setup();
    s.inst.db.exec(`CREATE TRIGGER refuse_done BEFORE UPDATE ON scripts WHEN NEW.status = 'done' BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    const e = await rejection(s.engine.scriptGenerate({ prompt: "Night trains." }));
    expect([e.status, e.body]).toEqual([500, { error: expect.stringMatching(/disk full/), code: "SCRIPT_GENERATION_FAILED" }]);
    expect(s.ledger().map((r) => [r.kind, r.amount])).toEqual([
      ["debit", -100],
      ["refund", 100],
    ]);
    expect(s.rows()).toEqual([expect.objectContaining({ status: "failed", error_code: "SCRIPT_GENERATION_FAILED" })]);
    expect(s.balance()).toBe(1_000_000);
  });

  it("a request that died while writing is failed and refunded by the next request once its deadline passes", async () => {
    const s = setup();
    // What a killed process leaves behind: the row and its debit, still `writing`.
    const now = s.clock.now();
    s.inst.tx(() => {
      s.inst.ledger.debit(s.spaceId, 300, "scr_dead", "script generate");
      s.inst.db
        .prepare(
          `INSERT INTO scripts (id, space_id, prompt, duration, urls, web_search, cost_milli, status, deadline, created_at, updated_at)
           VALUES ('scr_dead', ?, 'x', 120, '[]', 1, 300, 'writing', ?, 'then', 'then')`,
        )
        .run(s.spaceId, now + 60_000);
    });
    await s.engine.scriptGenerate({ prompt: "Night trains." });
    expect(s.inst.db.prepare("SELECT status FROM scripts WHERE id = 'scr_dead'").get()).toEqual({ status: "writing" });

    s.clock.advance(61_000);
    await s.engine.scriptGenerate({ prompt: "Night trains." });
    expect(s.inst.db.prepare("SELECT status, error_code FROM scripts WHERE id = 'scr_dead'").get()).toEqual({
      status: "failed",
      error_code: "SCRIPT_GENERATION_FAILED",
    });
    expect(
      s
        .ledger()
        .filter((r) => r.ref === "scr_dead")
        .map((r) => [r.kind, r.amount]),
    ).toEqual([
      ["debit", -300],
      ["refund", 300],
    ]);
    // Once: a later sweep finds nothing.
    expect(sweepDeadScripts(s.inst)).toBe(0);
    expect(s.balance()).toBe(1_000_000 - 200);
  });

  it("concurrent requests never overdraw: exactly as many succeed as the balance pays for", async () => {
    const s = setup(0.5);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => s.engine.scriptGenerate({ prompt: "Night trains." })));
    const ok = results.filter((r) => r.status === "fulfilled");
    const refused = results.flatMap((r) => (r.status === "rejected" ? [r.reason as ApiError] : []));
    expect(ok).toHaveLength(5);
    expect(refused.map((e) => [e.status, e.code])).toEqual(Array(3).fill([402, "INSUFFICIENT_CREDITS"]));
    expect(s.balance()).toBe(0);
    expect(s.inst.verifyLedger().every((c) => c.ok)).toBe(true);
  });

  it("records a script written by the local model (MEDIAGEN_LOCAL_LLM_URL read at request time)", async () => {
    const text = Array.from({ length: 12 }, (_, i) => `Sentence ${i + 1} about night trains is right here.`).join(" ");
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message: { content: text } }] })));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      process.env.MEDIAGEN_LOCAL_LLM_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const s = setup();
      const res = await s.engine.scriptGenerate({ prompt: "Write a script about night trains.", duration: 30 });
      expect(res).toEqual({ script: text, cost: 0.1, extractedImages: [] });
      expect(s.rows()).toEqual([expect.objectContaining({ status: "done", writer: "llm" })]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
