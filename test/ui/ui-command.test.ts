/**
 * Issue 27: `mediagen ui [--port] [--open]` as a process: prints its URL, serves the gallery there,
 * opens the desktop's browser with --open (a stand-in `xdg-open` on PATH records the URL), and
 * refuses a bad or busy port with the documented exit codes.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { execa } from "execa";
import { BIN, newHome, run } from "../cli/helpers.js";
import { runEnv } from "../helpers/cli.js";

describe.skipIf(process.platform !== "linux")("mediagen ui", () => {
  it("--open hands the dashboard's URL to the desktop's opener; the URL serves the gallery", async () => {
    const home = newHome();
    const bin = path.join(home, "fake-bin");
    const opened = path.join(home, "opened.txt");
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > "${opened}"\n`, { mode: 0o755 });
    const env = runEnv(home, { PATH: `${bin}:${process.env.PATH}` });
    const child = execa(process.execPath, [BIN, "ui", "--port", "0", "--json", "--open"], { env, extendEnv: false, reject: false, stdin: "ignore" });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.once("data", (d: Buffer) => resolve((JSON.parse(d.toString()) as { url: string }).url));
        void child.then((r) => reject(new Error(`ui ended: ${r.stderr}`)));
      });
      // With this run's secret (as notebook servers print it): the first visit trades it for a cookie.
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
      await expect.poll(() => (fs.existsSync(opened) ? fs.readFileSync(opened, "utf8") : ""), { timeout: 10_000 }).toBe(url);
      const origin = new URL(url).origin;
      expect((await fetch(`${origin}/`)).status).toBe(403);
      const first = await fetch(url, { redirect: "manual" });
      expect(first.status).toBe(303);
      const page = await fetch(`${origin}/`, { headers: { cookie: first.headers.get("set-cookie")!.split(";")[0]! } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Nothing made on this machine or this instance yet.");
    } finally {
      child.kill("SIGINT");
      const r = await child;
      expect(r.exitCode).toBe(0);
    }
  }, 60_000);

  it("a bad --port is a usage error; a busy one says so (exit 1)", async () => {
    const home = newHome();
    const bad = await run(["ui", "--port", "99999", "--json"], { home });
    expect(bad.exitCode).toBe(2);
    expect(bad.errorLine()).toMatchObject({ code: "invalid_value", field: "port" });
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    try {
      const port = (busy.address() as net.AddressInfo).port;
      const r = await run(["ui", "--port", String(port), "--json"], { home });
      expect(r.exitCode).toBe(1);
      expect(r.errorLine()).toMatchObject({ code: "address_in_use" });
    } finally {
      busy.close();
    }
  });
});
