/**
 * `mediagen/testing` (issue 36, item 6): the example app's node:test suite (examples/node-app/) run as
 * its users run it, through the package's `exports` (ES module); the CommonJS entry and its
 * declarations as a `require`-ing runner (jest) and TypeScript find them; and startEmulator itself,
 * under vitest, in this process: key and credits as asked, faults, journal, clock, snapshots, the
 * webhook receiver, reset back to the first state, stop removing the temp home.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/testing/index.js";
import { ROOT } from "../http/serve-child.js";

const exec = promisify(execFile);

/** The environment of a child that uses the package: nothing inherited that picks a home or a target. */
function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const k of Object.keys(e)) if (k.startsWith("MEDIAGEN_") || k.startsWith("NODE_TEST")) delete e[k];
  return e;
}

describe('the example app\'s tests (node:test, `import ... from "mediagen/testing"`)', () => {
  it("pass", async () => {
    const r = await exec(process.execPath, ["--test", "--test-reporter=tap", "examples/node-app/app.test.mjs"], { cwd: ROOT, env: env(), timeout: 120_000 }).catch(
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    const out = `${r.stdout}\n${r.stderr}`;
    expect(out, out).toMatch(/# pass 7\b/);
    expect(out).toMatch(/# fail 0\b/);
  }, 150_000);
});

describe("the package's entry points", () => {
  it("package.json exports ./testing as ES module, CommonJS and declarations, all built into dist/", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      exports: Record<string, Record<string, Record<string, string>>>;
      files: string[];
    };
    const t = pkg.exports["./testing"]!;
    for (const file of [t.import!.default!, t.import!.types!, t.require!.default!, t.require!.types!]) {
      expect(file.startsWith("./dist/"), file).toBe(true);
      expect(fs.existsSync(path.join(ROOT, file)), file).toBe(true);
    }
    expect(pkg.files).toContain("dist");
    expect(fs.readFileSync(path.join(ROOT, t.import!.types!), "utf8")).toMatch(/export declare function startEmulator\(o\?: StartOptions\): Promise<Emulator>/);
  });

  it("require('mediagen/testing') (a CommonJS runner such as jest) starts and stops an emulator", async () => {
    const script = `
      const { startEmulator } = require("mediagen/testing");
      (async () => {
        const mg = await startEmulator({ credits: 7 });
        const r = await fetch(mg.baseUrl + "/folder/list", { headers: { authorization: "Bearer " + mg.apiKey } });
        await mg.stop();
        console.log(JSON.stringify({ status: r.status, gone: !require("node:fs").existsSync(mg.home) }));
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const r = await exec(process.execPath, ["-e", script], { cwd: ROOT, env: env(), timeout: 60_000 });
    expect(JSON.parse(r.stdout.trim())).toEqual({ status: 200, gone: true });
  }, 90_000);
});

describe("startEmulator under vitest", () => {
  let mg: Emulator;
  beforeAll(async () => {
    mg = await startEmulator({ credits: 12.5, plan: "ENTREPRISE", webhookSecret: "whsec_dGVzdHNlY3JldA==" });
  }, 60_000);
  afterAll(async () => {
    await mg?.stop();
  });
  const get = (p: string) => fetch(`${mg.baseUrl}${p}`, { headers: { authorization: `Bearer ${mg.apiKey}` } });

  it("gives a key of a space with the plan and credits asked, a base URL, and the signing secret", async () => {
    expect(mg.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1$/);
    const space = await mg.admin<{ space: { plan: string; credits: number } }>("GET", `spaces/${mg.spaceId}`);
    expect(space.space).toMatchObject({ plan: "ENTREPRISE", credits: 12.5 });
    expect((await get("/folder/list")).status).toBe(200);
    expect(await mg.webhooks.secret()).toBe("whsec_dGVzdHNlY3JldA==");
  });

  it("faults, the journal, the clock and snapshots; reset() goes back to the first state", async () => {
    const [rule] = await mg.faults.add({ op: "folderList", action: "error", status: 503, times: 1 });
    expect(rule).toMatchObject({ op: "folderList", action: "error", state: "active" });
    expect((await get("/folder/list")).status).toBe(503);
    expect((await get("/folder/list")).status).toBe(200);
    expect((await mg.requests({ op: "folderList", status: "5xx" })).map((r) => r.status)).toEqual([503]);
    expect((await mg.faults.list())[0]).toMatchObject({ state: "spent" });
    const moved = await mg.clock.advance("1d");
    expect(moved.offset_ms).toBeGreaterThanOrEqual(86_400_000);
    await mg.snapshot("moved");
    await mg.reset();
    expect(await mg.requests()).toEqual([]);
    expect(await mg.faults.list()).toEqual([]);
    expect((await mg.clock.get()).offset_ms).toBe(0);
    expect((await get("/folder/list")).status).toBe(200);
    await mg.restore("moved");
    expect((await mg.clock.get()).offset_ms).toBeGreaterThanOrEqual(86_400_000);
    await mg.reset();
  });

  it("the webhook receiver records deliveries with their webhook-id, a resend marked as a repeat", async () => {
    const sent = await mg.admin<{ delivery: { id: string; webhook_id: string } }>("POST", "webhooks/trigger", { task: "video_generate", to: mg.webhooks.url });
    await mg.webhooks.waitFor(1);
    await mg.admin("POST", `webhooks/${sent.delivery.id}/resend`);
    const got = await mg.webhooks.waitFor(2);
    expect(got.map((d) => [d.id, d.repeat])).toEqual([
      [sent.delivery.webhook_id, false],
      [sent.delivery.webhook_id, true],
    ]);
    expect(got[0]!.headers["webhook-signature"]).toMatch(/^v1,/);
    expect(got[0]!.body).toMatchObject({ task: "video_generate", status: "completed" });
    mg.webhooks.clear();
    expect(mg.webhooks.deliveries()).toEqual([]);
    await expect(mg.webhooks.waitFor(1, 50)).rejects.toThrow(/0 of 1 webhook deliveries arrived within 50 ms/);
  });

  it("an admin call that fails throws an EmulatorError naming the reason", async () => {
    await expect(mg.faults.add({ op: "folderList", action: "error", status: 503, probabilty: 1 } as never)).rejects.toThrow(/HTTP 400: unknown field probabilty/);
  });

  it("stop() ends the child and removes its temp home", async () => {
    const other = await startEmulator();
    expect(fs.existsSync(other.home)).toBe(true);
    await other.stop();
    expect(fs.existsSync(other.home)).toBe(false);
    await expect(fetch(`${other.baseUrl}/folder/list`)).rejects.toThrow();
  }, 60_000);
});
