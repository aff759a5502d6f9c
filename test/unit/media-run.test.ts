/**
 * runTool's process group dies with its parent, however the parent ends (a SIGKILLed worker runs no
 * exit hook), and with the tool: nothing it started outlives it. Failures that are the machine's
 * (a full disk) are named, not just the exit code.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { runTool, systemCause } from "../../src/media/run.js";
import { processState } from "../../src/local/worker-registry.js";
import { waitFor } from "../helpers/local.js";

const posix = process.platform !== "win32";
const ended = (pid: number) => ["gone", "zombie"].includes(processState(pid));

describe.skipIf(!posix)("runTool's watchdog", () => {
  it("kills the tool's group when the parent is SIGKILLed", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-run-"));
    const pidFile = path.join(dir, "pid");
    const script = path.join(dir, "parent.mjs");
    // The parent runs the built runTool (dist/), as a worker does.
    const run = pathToFileURL(path.resolve("dist/media/run.js")).href;
    fs.writeFileSync(
      script,
      `import { runTool } from ${JSON.stringify(run)};\nrunTool("sh", ["-c", "echo $$ > ${pidFile}; exec sleep 30"]).catch(() => {});\nsetInterval(() => {}, 1000);\n`,
    );
    const parent = spawn(process.execPath, [script], { stdio: "ignore" });
    const tool = Number(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim(), 5000));
    expect(processState(tool)).toBe("running");
    parent.kill("SIGKILL");
    const t0 = Date.now();
    await waitFor(() => ended(tool), 3000);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("kills what the tool left running in its group once it exits", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-run-"));
    const pidFile = path.join(dir, "straggler");
    await runTool("sh", ["-c", `sleep 30 >/dev/null 2>&1 & echo $! > ${pidFile}`]);
    const straggler = Number(fs.readFileSync(pidFile, "utf8").trim());
    await waitFor(() => ended(straggler), 3000);
  });

  it("still feeds stdin, keeps stdout, and reports a missing tool as one that could not start", async () => {
    expect((await runTool("cat", [], { input: "hello" })).stdout).toBe("hello");
    await expect(runTool("mediagen-no-such-tool", [])).rejects.toThrow("could not start mediagen-no-such-tool: ENOENT");
  });
});

describe("failures of the machine are named", () => {
  it.each([
    ["av_interleaved_write_frame(): No space left on device", "no space left on device"],
    ["Error writing trailer: Disk quota exceeded", "disk quota exceeded"],
    ["out.png: Read-only file system", "read-only file system"],
    ["Invalid data found when processing input", undefined],
  ])("%s → %s", (stderr, cause) => {
    expect(systemCause(stderr)).toBe(cause);
  });
});
