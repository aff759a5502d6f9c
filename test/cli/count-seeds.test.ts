/** `asset start --count 2` on the local instance (issue 11): two generations, two different pictures. */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

const sha = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");

describe("--count 2", () => {
  it("renders two different images of one prompt (each generation its own seed)", async () => {
    const home = newHome();
    const out = path.join(home, "out");
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a red fox", "--count", "2", "--watch", "--download", out, "-q"], {
      home,
      timeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const files = r.stdout.trim().split("\n");
    expect(files).toHaveLength(2);
    expect(sha(files[0]!)).not.toBe(sha(files[1]!));
  });
});
