import { expect, it } from "vitest";
import { RATE_LIMIT_MESSAGE } from "../../src/contract/poll.js";
import { apiError, forBothTargets } from "./harness.js";

forBothTargets("rate limit", (t) => {
  it("allows 100 requests per window, counts down, and answers the 101st with the hosted 429", async () => {
    const engine = t.engine({ rateLimitRetries: 0 });
    const remaining: number[] = [];
    for (let i = 0; i < 100; i++) {
      await engine.folderList();
      remaining.push(engine.lastRateLimit()!.remaining);
    }
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    const reset = engine.lastRateLimit()!.reset;
    expect(reset * 1000).toBeGreaterThan(t.instance.clock.now());
    expect(reset * 1000).toBeLessThanOrEqual(t.instance.clock.now() + 61_000);

    const err = await apiError(engine.folderList());
    expect(err.status).toBe(429);
    expect(err.code).toBe("rate_limit_exceeded");
    expect(err.body).toEqual({ error: RATE_LIMIT_MESSAGE, details: [{ code: "rate_limit_exceeded", message: expect.any(String) }] });
    expect(err.headers).toMatchObject({ "x-ratelimit-limit": "100", "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) });

    // A rejected request is not counted; the next window starts afresh.
    t.instance.clock.advance(reset * 1000 - t.instance.clock.now() + 1);
    await engine.folderCreate({ name: "after the window" });
    expect(engine.lastRateLimit()).toMatchObject({ limit: 100, remaining: 99 });
  });

  it("counts each space on its own", async () => {
    const busy = t.engine({ rateLimitRetries: 0 });
    for (let i = 0; i < 100; i++) await busy.folderList();
    expect((await apiError(busy.folderList())).status).toBe(429);
    const other = t.engine({ rateLimitRetries: 0 });
    await other.folderList();
    expect(other.lastRateLimit()!.remaining).toBe(99);
  });

  it("the client waits for X-RateLimit-Reset after a 429 and then succeeds", async () => {
    const lines: string[] = [];
    const engine = t.engine({ debug: (l) => lines.push(l) });
    for (let i = 0; i < 100; i++) await engine.folderList();
    const reset = engine.lastRateLimit()!.reset;
    const before = t.instance.clock.now();
    await expect(engine.folderCreate({ name: "101st" })).resolves.toMatchObject({ name: "101st" });
    // The harness's clients sleep by moving the instance's clock: it waited until the window reset.
    expect(t.instance.clock.now()).toBeGreaterThanOrEqual(reset * 1000);
    // At most a window, plus the second the server's Date header rounds down on the hosted target.
    expect(t.instance.clock.now() - before).toBeLessThanOrEqual(62_000);
    if (t.target === "hosted") expect(lines.some((l) => l.startsWith("← 429"))).toBe(true);
    expect(engine.lastRateLimit()).toMatchObject({ remaining: 99 });
  });
});
