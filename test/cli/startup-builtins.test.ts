/**
 * Node's own modules cost start-up time too (each is compiled on first load): a local read must not
 * load node:child_process (with net and dgram behind it: only a worker spawn needs it) or perf_hooks.
 * The built CLI runs with a preload (fixtures/trace-builtins.cjs) that lists the built-ins it loaded.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";
import { runEnv } from "../helpers/cli.js";

const PRELOAD = fileURLToPath(new URL("./fixtures/trace-builtins.cjs", import.meta.url));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mediagen-builtins-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function builtins(args: string[], home: string): Promise<{ exitCode: number; modules: string[] }> {
  const file = path.join(tmp, `builtins-${Math.random().toString(36).slice(2)}.txt`);
  // Files, not pipes: a pipe is a net.Socket, which loads net by itself (a shell's `> file` does not).
  const out = fs.openSync(`${file}.out`, "w");
  try {
    const r = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ["-r", PRELOAD, BIN, ...args], {
        env: { ...runEnv(home), TRACE_BUILTINS_FILE: file },
        stdio: ["ignore", out, out],
      });
      child.on("error", reject);
      child.on("exit", (code) => resolve(code ?? -1));
    });
    return { exitCode: r, modules: fs.readFileSync(file, "utf8").split("\n").filter(Boolean) };
  } finally {
    fs.closeSync(out);
  }
}

const SPAWN_OR_TIMING = /^(child_process|internal\/child_process|net|dgram|perf_hooks)$/;

describe("built-in modules loaded by a local read", () => {
  it("folder list loads no child_process, net, dgram or perf_hooks (twice: creating the instance, then reading it)", async () => {
    const home = path.join(tmp, "home");
    for (let i = 0; i < 2; i++) {
      const { exitCode, modules } = await builtins(["folder", "list", "--json"], home);
      expect(exitCode).toBe(0);
      // The trace works: SQLite's loader and the key hash are seen.
      expect(modules).toContain("crypto");
      expect(
        modules.filter((m) => SPAWN_OR_TIMING.test(m)),
        `run ${i}: ${modules.join(" ")}`,
      ).toEqual([]);
    }
  });
});
