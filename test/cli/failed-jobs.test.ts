/**
 * A failed job (issue 11): the reason is said once, in the error that ends the command, with what
 * happened to the credits; no internal header names.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

let home: string;
beforeAll(() => {
  home = newHome();
});

const count = (s: string, part: string) => s.split(part).length - 1;

describe("a failed job's ending", () => {
  it.each([
    [
      "asset",
      ["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "waves", "--simulate", "fail", "--watch"],
      "generation_failed",
      "32 credits refunded",
    ],
    ["look", ["avatar", "create", "--prompt", "a barista", "--resolution", "4K", "--simulate", "fail", "--watch"], "LOOK_GENERATION_FAILED", "4 credits refunded"],
    ["generation", ["generate", "--prompt", "why cats purr", "--duration", "10", "--simulate", "fail", "--watch"], "GENERATION_FAILED", "5 credits refunded"],
  ])("%s: exit 7, the code once, the refund said, no header names", async (_kind, args, code, refund) => {
    const r = await run(args, { home });
    expect(r.exitCode, r.stderr).toBe(7);
    const all = r.stdout + r.stderr;
    expect(count(all, code), all).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^Error: .*${code}.*; ${refund}$`, "m"));
    expect(all).not.toMatch(/X-Local|x-local/);
    expect(r.stdout).toMatch(/failed/);
  });

  it("--json: the service's object on stdout keeps the error; stderr says it once with the refund", async () => {
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "fox", "--simulate", "fail", "--watch", "--json"], { home });
    expect(r.exitCode).toBe(7);
    expect(r.json<{ error: { code: string } }>().error.code).toBe("generation_failed");
    expect(r.errorLine()?.message).toMatch(/generation_failed: Simulated failure; 1 credit refunded/);
  });

  it("a look's state reads as the service says it, in text as in JSON: the status endpoint's word in the watch, the look record's in `avatar get`", async () => {
    const created = await run(["avatar", "create", "--prompt", "a chef", "--simulate", "fail", "--watch", "--json"], { home });
    const { avatar_id, status } = created.json<{ avatar_id: string; status: string }>();
    expect(status).toBe("failed");
    const watched = await run(["avatar", "create", "--prompt", "a chef", "--simulate", "fail", "--watch"], { home });
    expect(watched.stdout).toMatch(/^status\s+failed$/m);
    const got = await run(["avatar", "get", avatar_id], { home });
    expect(got.exitCode, got.stderr).toBe(0);
    const record = (await run(["avatar", "get", avatar_id, "--json"], { home })).json<{ looks: { status: string }[] }>();
    expect(record.looks[0]!.status).toBe("error");
    expect(got.stdout).toMatch(/lk_\w+\s+error/);
    const ok = await run(["avatar", "create", "--prompt", "a chef", "--watch"], { home, timeoutMs: 60_000 });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^status\s+completed$/m);
  });
});
