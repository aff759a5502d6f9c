/**
 * Ctrl-C in a shell loop of mediagen commands (issue 38): the terminal sends SIGINT to the whole
 * foreground group, the shell and the command. A shell goes on with its loop when the command exits
 * (even 130: "handled"), and stops only when the command died of SIGINT. So mediagen, once it has
 * cleaned up and printed the resume command, ends by SIGINT itself: the loop does not start (and pay
 * for) the next job. A real bash, a real process of the built CLI, against the hosted stub.
 */
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { runEnv } from "../helpers/cli.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, newHome } from "./helpers.js";
import { startStub, type Stub } from "./stub-service.js";

const KEY = "mg_live_" + "5a".repeat(32);
let stub: Stub;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(() => stub?.close());

describe("Ctrl-C in a shell loop", () => {
  it("stops the loop: the next job is never asked for, and the shell itself ends by SIGINT", async () => {
    const home = newHome();
    const log = path.join(home, "loop.log");
    const script = [
      "for i in 1 2 3; do",
      `  "$NODE" "$BIN" --target hosted --base-url "$BASE" asset status pend-loop-$i --watch --timeout 3s`,
      `  echo "after $i exit $?" >> "$LOG"`,
      "done",
      `echo "loop finished" >> "$LOG"`,
    ].join("\n");
    // Its own process group, as a terminal's foreground job: the SIGINT goes to bash and mediagen alike.
    const shell = execa("bash", ["-c", script], {
      env: { ...runEnv(home, { MEDIAGEN_API_KEY: KEY }), NODE: process.execPath, BIN, BASE: stub.root, LOG: log },
      extendEnv: false,
      detached: true,
      reject: false,
      stdin: "ignore",
      timeout: 20_000,
    });
    for (let i = 0; i < 200 && !stub.requests.includes("GET /asset/status/pend-loop-1"); i++) await new Promise((r) => setTimeout(r, 50));
    expect(stub.requests).toContain("GET /asset/status/pend-loop-1");
    process.kill(-shell.pid!, "SIGINT");
    const r = await shell;
    // The command said how to resume before it ended…
    expect(String(r.stderr)).toContain("asset status pend-loop-1 --watch");
    // …and the loop stopped there: no second job, nothing after it.
    expect(stub.requests.filter((q) => q.includes("pend-loop-2"))).toEqual([]);
    expect(fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "").not.toContain("loop finished");
    expect(r.signal ?? `exit ${r.exitCode}`).toBe("SIGINT");
  });
});
