/**
 * The local clock is bounded: `local clock advance 99999999999d` is refused (exit 2) and stores
 * nothing, and a clock stored out of bounds before (or by hand) does not break every command and can
 * always be reset.
 */
import { describe, expect, it } from "vitest";
import { openLocalInstance } from "../../src/features/local.js";
import { newHome, run } from "./helpers.js";

interface ClockJson {
  offset_ms: number;
  frozen_at: number | null;
  now: string;
}

describe("local clock bounds", () => {
  it("refuses an advance past a century (exit 2) and stores nothing; frozen too", async () => {
    const home = newHome();
    const bad = await run(["local", "clock", "advance", "99999999999d", "--json"], { home });
    expect(bad.exitCode).toBe(2);
    expect(bad.errorLine()?.message).toMatch(/at most 100 years ahead/);
    const shown = await run(["local", "clock", "show", "--json"], { home });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.json<ClockJson>().offset_ms).toBe(0);
    expect((await run(["local", "keys", "create", "--plan", "PRO", "--credits", "5"], { home })).exitCode).toBe(0);

    expect((await run(["local", "clock", "freeze"], { home })).exitCode).toBe(0);
    expect((await run(["local", "clock", "advance", "36600d"], { home })).exitCode).toBe(2);
    const ok = await run(["local", "clock", "advance", "30d", "--json"], { home });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.json<ClockJson>().offset_ms).toBeGreaterThan(29 * 86_400_000);
  });

  it("a clock stored out of bounds is not applied: commands run, and reset clears it", async () => {
    const home = newHome();
    const inst = openLocalInstance({ home, worker: "none" });
    inst.db.prepare("INSERT INTO settings (key, value) VALUES ('clock_offset_ms', '1e300'), ('clock_frozen_at', '8.64e18')").run();
    await inst.close();
    const shown = await run(["local", "clock", "show", "--json"], { home });
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(Number.isNaN(Date.parse(shown.json<ClockJson>().now))).toBe(false);
    const created = await run(["local", "keys", "create", "--plan", "PRO", "--credits", "5"], { home });
    expect(created.exitCode, created.stderr).toBe(0);
    expect((await run(["local", "clock", "reset"], { home })).exitCode).toBe(0);
    const check = openLocalInstance({ home, worker: "none" });
    expect(check.db.prepare("SELECT COUNT(*) AS n FROM settings WHERE key LIKE 'clock_%'").get()).toEqual({ n: 0 });
    await check.close();
  });
});
