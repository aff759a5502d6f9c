/**
 * Plan files are read within the service's body limit (1 MiB) before anything parses them: past it,
 * a usage error (exit 2, `payload_too_large`, naming the argument), whatever reads the plan.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

function bigPlan(dir: string): string {
  const file = path.join(dir, "big.json");
  const text = "x".repeat(2 * 1024 * 1024);
  fs.writeFileSync(file, JSON.stringify([{ voice_id: "vc_emma", sequences: [{ text }] }]));
  return file;
}

describe("a plan over 1 MiB", () => {
  it.each([
    [["plan", "validate"], "<file>"],
    [["plan", "show"], "<file>"],
    [["generate", "--plan"], "--plan"],
  ])("%s is refused before parsing (exit 2)", async (args, flag) => {
    const home = newHome();
    const r = await run([...args, bigPlan(home), "--json"], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`"code":"payload_too_large"`);
    expect(r.stderr).toContain(`${flag}: `);
    expect(r.stderr).toMatch(/larger than 1048576 bytes/);
  });
});
