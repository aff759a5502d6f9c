/**
 * One body limit (1 MiB, src/contract/limits.ts) for both targets: the CLI's `--body` reader stops at
 * it (a file, a device, an endless pipe), and the in-process engine answers an over-limit body with
 * the very 413 `serve` answers.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { readJsonBody } from "../../src/cli/body.js";
import { EXIT } from "../../src/cli/types.js";
import { BODY_MAX_BYTES } from "../../src/contract/limits.js";
import { ApiError } from "../../src/engine/errors.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { openTestInstance } from "../helpers/local.js";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "mg-body-"));
/** A JSON object of exactly `bytes` bytes. */
const bodyOf = (bytes: number) => `{"name":"${"x".repeat(bytes - 11)}"}`;

describe("--body reads at most 1 MiB", () => {
  it("takes a body of exactly the limit and refuses one byte more, from a file and from stdin", async () => {
    const dir = tmp();
    const ok = path.join(dir, "ok.json");
    const over = path.join(dir, "over.json");
    fs.writeFileSync(ok, bodyOf(BODY_MAX_BYTES));
    fs.writeFileSync(over, bodyOf(BODY_MAX_BYTES + 1));
    expect(Buffer.byteLength(fs.readFileSync(ok))).toBe(BODY_MAX_BYTES);
    expect(((await readJsonBody(ok, { stdin: Readable.from([]) }, true)).name as string).length).toBe(BODY_MAX_BYTES - 11);
    await expect(readJsonBody(over, { stdin: Readable.from([]) }, true)).rejects.toMatchObject({
      exitCode: EXIT.usage,
      code: "payload_too_large",
      message: expect.stringContaining("larger than 1048576 bytes"),
    });
    await expect(readJsonBody("-", { stdin: Readable.from([Buffer.from(bodyOf(BODY_MAX_BYTES + 1))]) }, true)).rejects.toMatchObject({ code: "payload_too_large" });
  });

  it("stops reading an endless source: /dev/zero and a pipe that never ends", async () => {
    if (fs.existsSync("/dev/zero")) {
      await expect(readJsonBody("/dev/zero", { stdin: Readable.from([]) }, true)).rejects.toMatchObject({ code: "payload_too_large" });
    }
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024, 0x20));
      },
    });
    await expect(readJsonBody("-", { stdin: endless }, true)).rejects.toMatchObject({ code: "payload_too_large" });
    expect(pulled).toBeLessThan(BODY_MAX_BYTES + 4 * 64 * 1024);
    expect(endless.destroyed).toBe(true);
  });
});

describe("the in-process engine holds bodies to the server's limit", () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close(0);
  });

  it("an over-limit body gets the same 413 (status, body) in process as over HTTP, and nothing is created", async () => {
    const t = openTestInstance({ worker: "none" });
    const big = { name: "x".repeat(2 * BODY_MAX_BYTES), type: "assets" };
    const inProcess = await t.api.call("folderCreate", big as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(inProcess).toBeInstanceOf(ApiError);
    const server = await startServer({ instance: t, port: 0 });
    servers.push(server);
    const res = await fetch(`${server.baseUrl}/folder/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
      body: JSON.stringify(big),
    });
    expect((inProcess as ApiError).status).toBe(413);
    expect(res.status).toBe(413);
    expect((inProcess as ApiError).body).toEqual(await res.json());
    expect((inProcess as ApiError).headers["x-ratelimit-limit"]).toBe("100");
    expect((await t.api.call("folderList", {})).folders).toEqual([]);
  });

  it("the key's 401 comes before the 413, as over HTTP; a body under the limit reaches the rules", async () => {
    const t = openTestInstance({ worker: "none" });
    const stranger = t.engine(`mg_live_${"0".repeat(64)}`);
    const e = await stranger.call("folderCreate", { name: "x".repeat(2 * BODY_MAX_BYTES), type: "assets" }).catch((err: ApiError) => err);
    expect(e.status).toBe(401);
    const under = await t.api.call("folderCreate", { name: "x".repeat(BODY_MAX_BYTES - 100), type: "assets" }).catch((err: ApiError) => err);
    expect((under as ApiError).status).toBe(400); // the name bound, not the body limit
  });
});
