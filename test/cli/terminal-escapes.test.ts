/**
 * Escape sequences from outside never reach the terminal raw: an OSC 52 clipboard write, a title
 * change, a screen clear and an OSC 8 link in a hosted error message, in a prompt stored locally
 * (`asset status`, `history`) and in a webhook `listen` prints are shown visibly escaped in text
 * output, while `--json` keeps the value. `listen` redacts header values whose names say secret,
 * token, key, signature or authorization.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeControls, terminalLine } from "../../src/cli/terminal-text.js";
import { describeEvent, startReceiver, type WebhookEvent } from "../../src/cli/webhook-receiver.js";
import { newHome, run } from "./helpers.js";

const OSC52 = "\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007";
const TITLE = "\u001b]0;pwned\u0007";
const CLEAR = "\u001b[2J\u001b[H";
const LINK = "\u001b]8;;http://127.0.0.1:9/x\u001b\\click\u001b]8;;\u001b\\";
const HOSTILE = `fox${OSC52}${TITLE}${CLEAR}${LINK}\u009b31m`;

/** No control character but newline and tab (and, in coloured output, none at all here: NO_COLOR). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be printed raw.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("the escaping", () => {
  it("shows every control character but newline and tab, and keeps only the CLI's own colour codes in a line", () => {
    expect(escapeControls(`a${OSC52}b\tc\nd\re\u009b`)).toBe("a\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07b\tc\nd\\x0de\\u009b");
    expect(terminalLine("\u001b[31mError:\u001b[39m x\u001b[2J")).toBe("\u001b[31mError:\u001b[39m x\\x1b[2J");
    expect(RAW.test(escapeControls(HOSTILE))).toBe(false);
  });
});

describe("local store text", () => {
  const home = newHome();
  let assetId: string;
  beforeAll(async () => {
    const r = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", HOSTILE, "-q"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    assetId = r.stdout.trim();
  });

  it("asset status shows the stored prompt escaped; --json keeps it", async () => {
    const text = await run(["asset", "status", assetId], { home });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(RAW.test(text.stdout), JSON.stringify(text.stdout)).toBe(false);
    expect(text.stdout).toContain("fox\\x1b]52;c;");
    const json = await run(["asset", "status", assetId, "--json"], { home });
    // The value itself, every control character in it.
    expect(JSON.stringify(json.json())).toContain(JSON.stringify(HOSTILE).slice(1, -1));
  });

  it("history shows what the journal holds escaped (a status and a model as a service gave them)", async () => {
    const entry = {
      v: 1,
      event: "start",
      at: new Date().toISOString(),
      kind: "asset",
      id: "as_hostile",
      model: `m${TITLE}`,
      cost: 1,
      status: `done${CLEAR}`,
      target: "hosted",
      base_url: null,
      profile: "default",
    };
    fs.appendFileSync(path.join(home, "history.jsonl"), `${JSON.stringify(entry)}\n`);
    const r = await run(["history"], { home });
    expect(r.stdout).toContain("done\\x1b[2J");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(RAW.test(r.stdout), JSON.stringify(r.stdout)).toBe(false);
  });
});

describe("hosted text", () => {
  let server: http.Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      const body = JSON.stringify({ error: `Bad${HOSTILE}`, details: [{ code: "invalid_value", message: `Bad request${HOSTILE}` }] });
      res.writeHead(400, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const env = () => ({ MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: baseUrl, MEDIAGEN_API_KEY: `mg_live_${"a".repeat(64)}` });

  it("an error message from the service is shown escaped; the --json error line keeps the value", async () => {
    const r = await run(["folder", "list"], { home: newHome(), env: env() });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain("Bad request");
    expect(RAW.test(r.stderr), JSON.stringify(r.stderr)).toBe(false);
    expect(r.stderr).toContain("\\x1b]0;pwned\\x07");
    const j = await run(["folder", "list", "--json"], { home: newHome(), env: env() });
    expect(j.errorLine()?.message).toContain(`Bad request${HOSTILE}`);
  });
});

describe("listen", () => {
  it("prints a hostile delivery's summary escaped and redacts secret-looking headers", async () => {
    const events: WebhookEvent[] = [];
    const receiver = await startReceiver({ onEvent: (e) => events.push(e) });
    try {
      const res = await fetch(receiver.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-secret": "s3cr3t-value",
          "x-auth-token": "tok-value",
          "x-api-key": "key-value",
          "x-upstream-signature": "sig-value",
          "x-request-id": "req-1",
        },
        body: JSON.stringify({ task: `asset_generation${OSC52}`, status: `completed${CLEAR}`, asset_id: `as_1${TITLE}` }),
      });
      expect(res.status).toBe(200);
      expect(events).toHaveLength(1);
      const e = events[0]!;
      for (const h of ["x-secret", "x-auth-token", "x-api-key", "x-upstream-signature"]) expect(e.headers[h], h).toBe("[redacted]");
      expect(e.headers["x-request-id"]).toBe("req-1");
      expect(JSON.stringify(e)).not.toMatch(/s3cr3t-value|tok-value|key-value|sig-value/);
      const line = describeEvent(e);
      expect(RAW.test(line), JSON.stringify(line)).toBe(false);
      expect(line).toContain("asset_generation\\x1b]52;c;");
    } finally {
      await receiver.close();
    }
  });
});
