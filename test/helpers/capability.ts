/**
 * Tests that need something only some media tools have (xfade is in Debian's ffmpeg 5.1, not in
 * the npm copy, ffmpeg 4.1, that a fresh machine runs) skip where it is missing and say why on
 * stderr, so a run on a fresh machine shows what it did not check.
 */
import type { TestContext } from "vitest";

export function skipUnless(ctx: TestContext, available: boolean, reason: string): void {
  if (available) return;
  process.stderr.write(`skipped "${ctx.task.name}": ${reason}\n`);
  ctx.skip(reason);
}
