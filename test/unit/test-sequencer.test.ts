/** The suite's own file order (test/setup/sequencer.ts): files new to test/durations.json first, then the longest. */
import path from "node:path";
import { expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import LongestFirst from "../setup/sequencer.js";
import durations from "../durations.json" with { type: "json" };

it("starts files unknown to test/durations.json first, then the known ones longest first", async () => {
  const root = path.resolve(import.meta.dirname, "..", "..");
  const known = Object.keys(durations);
  const [longest, second, shortest] = [known[0]!, known[1]!, known.at(-1)!];
  const spec = (rel: string) => ({ moduleId: path.join(root, rel) }) as TestSpecification;
  const sequencer = new LongestFirst({ config: { root } } as unknown as Vitest);
  const order = await sequencer.sort([spec(shortest), spec(second), spec("test/unit/not-yet-timed.test.ts"), spec(longest)]);
  expect(order.map((s) => path.relative(root, s.moduleId))).toEqual(["test/unit/not-yet-timed.test.ts", longest, second, shortest]);
  expect(durations[longest as keyof typeof durations]).toBeGreaterThan(durations[shortest as keyof typeof durations]);
});
