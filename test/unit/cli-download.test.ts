import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { download, prepareDir } from "../../src/cli/download.js";
import { readJsonBody } from "../../src/cli/body.js";
import { Readable } from "node:stream";
import { EXIT } from "../../src/cli/types.js";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
const PAYLOAD = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));

const server = http.createServer((req, res) => {
  if (req.url === "/media/a.mp4") res.writeHead(200, { "content-type": "video/mp4" }).end(PAYLOAD);
  else if (req.url === "/redirect") res.writeHead(302, { location: "/media/a.mp4" }).end();
  else if (req.url === "/gone") res.writeHead(404).end("no");
  else if (req.url === "/slow") {
    // Sends a first chunk, then never finishes: a download that is still running.
    res.writeHead(200, { "content-type": "video/mp4" });
    res.write(PAYLOAD.subarray(0, 50_000));
    slowStarted?.();
  } else res.writeHead(500).end("boom");
});
let base = "";
let slowStarted: (() => void) | undefined;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const leftovers = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith(".part"));

describe("download", () => {
  it("fetches http(s) into dir/name and returns the absolute path", async () => {
    const dir = path.join(tmp(), "out");
    const p = await download(`${base}/media/a.mp4`, dir, "a1.mp4");
    expect(p).toBe(path.join(dir, "a1.mp4"));
    expect(path.isAbsolute(p)).toBe(true);
    expect(fs.readFileSync(p).equals(PAYLOAD)).toBe(true);
    expect(leftovers(dir)).toEqual([]);
  });

  it("follows redirects", async () => {
    const dir = tmp();
    const p = await download(`${base}/redirect`, dir, "r.mp4");
    expect(fs.readFileSync(p).equals(PAYLOAD)).toBe(true);
  });

  it("copies file:// URLs and plain paths", async () => {
    const src = path.join(tmp(), "src.png");
    fs.writeFileSync(src, "png-bytes");
    const dir = tmp();
    expect(fs.readFileSync(await download(pathToFileURL(src).href, dir, "x.png", { allowLocal: true }), "utf8")).toBe("png-bytes");
    expect(fs.readFileSync(await download(src, dir, "y.png", { allowLocal: true }), "utf8")).toBe("png-bytes");
  });

  it("refuses to overwrite without force (exit 2), overwrites with it", async () => {
    const dir = tmp();
    const target = path.join(dir, "a.mp4");
    fs.writeFileSync(target, "old");
    await expect(download(`${base}/media/a.mp4`, dir, "a.mp4")).rejects.toMatchObject({ exitCode: EXIT.usage, code: "file_exists" });
    expect(fs.readFileSync(target, "utf8")).toBe("old");
    await download(`${base}/media/a.mp4`, dir, "a.mp4", { force: true });
    expect(fs.readFileSync(target).equals(PAYLOAD)).toBe(true);
    expect(leftovers(dir)).toEqual([]);
  });

  it.each([
    ["/gone", EXIT.notFound],
    ["/error", EXIT.error],
  ])("HTTP failure %s → exit %i, no file left behind", async (p, code) => {
    const dir = tmp();
    await expect(download(`${base}${p}`, dir, "f.mp4")).rejects.toMatchObject({ exitCode: code });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("a missing local source → exit 4; a name with a slash → exit 2", async () => {
    const dir = tmp();
    await expect(download(pathToFileURL(path.join(dir, "nope.png")).href, dir, "n.png", { allowLocal: true })).rejects.toMatchObject({ exitCode: EXIT.notFound });
    await expect(download(`${base}/media/a.mp4`, dir, "../evil.mp4")).rejects.toMatchObject({ exitCode: EXIT.usage });
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe("download: what a hosted service may hand out", () => {
  it.each([
    ["a file: URL", () => "file:///etc/passwd"],
    [
      "a file: URL to a readable file",
      () => {
        const f = path.join(tmp(), "s.txt");
        fs.writeFileSync(f, "secret");
        return pathToFileURL(f).href;
      },
    ],
    ["a plain path", () => "/etc/passwd"],
  ])("%s is refused unless local files are allowed (exit 1, nothing written)", async (_n, url) => {
    const dir = tmp();
    await expect(download(url(), dir, "x.mp4")).rejects.toMatchObject({ exitCode: EXIT.error, code: "unsafe_url" });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("http(s) is still fetched when local files are refused", async () => {
    const dir = tmp();
    expect(fs.readFileSync(await download(`${base}/media/a.mp4`, dir, "a.mp4", { allowLocal: false })).equals(PAYLOAD)).toBe(true);
  });
});

describe("download directory", () => {
  it("prepareDir creates the directory and returns it absolute", () => {
    const dir = path.join(tmp(), "a", "b");
    expect(prepareDir(path.relative(process.cwd(), dir))).toBe(dir);
    expect(fs.statSync(dir).isDirectory()).toBe(true);
  });

  it("a directory that cannot be created is a usage error (exit 2), from prepareDir and from download", async () => {
    const file = path.join(tmp(), "plain.txt");
    fs.writeFileSync(file, "x");
    for (const bad of [file, path.join(file, "sub")]) {
      expect(() => prepareDir(bad)).toThrow(expect.objectContaining({ exitCode: EXIT.usage, field: "--download" }));
      await expect(download(`${base}/media/a.mp4`, bad, "a.mp4")).rejects.toMatchObject({ exitCode: EXIT.usage, field: "--download" });
    }
  });
});

describe("download: Ctrl-C", () => {
  it("stops the transfer, removes the temp file, exits 130 with the resume command", async () => {
    const dir = tmp();
    let interrupt: (() => void) | undefined;
    let unregistered = false;
    slowStarted = () => setTimeout(() => interrupt?.(), 50);
    const t0 = Date.now();
    await expect(
      download(`${base}/slow`, dir, "s.mp4", {
        resume: "mediagen asset status abc --download out",
        onInterrupt: (h) => {
          interrupt = h;
          return () => {
            unregistered = true;
          };
        },
      }),
    ).rejects.toMatchObject({ exitCode: EXIT.interrupted, message: expect.stringContaining("Resume with: mediagen asset status abc --download out") });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(unregistered).toBe(true);
  });

  it("a surrounding wait's signal stops it the same way", async () => {
    const dir = tmp();
    const ac = new AbortController();
    slowStarted = () => setTimeout(() => ac.abort(), 50);
    await expect(download(`${base}/slow`, dir, "s.mp4", { signal: ac.signal })).rejects.toMatchObject({ exitCode: EXIT.interrupted });
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe("readJsonBody", () => {
  const stdin = (text: string, isTTY = false) => Object.assign(Readable.from([Buffer.from(text)]), { isTTY });

  it("reads an object from stdin or a file", async () => {
    expect(await readJsonBody("-", { stdin: stdin('{"a":1}') }, true)).toEqual({ a: 1 });
    const f = path.join(tmp(), "b.json");
    fs.writeFileSync(f, '{"name":"x"}');
    expect(await readJsonBody(f, { stdin: stdin("") }, true)).toEqual({ name: "x" });
  });

  it.each([
    ["bad JSON", "{", "invalid_json"],
    ["an array", "[]", "invalid_json"],
    ["a string", '"x"', "invalid_json"],
    ["empty", "", "invalid_json"],
  ])("%s → exit 2", async (_n, text, code) => {
    await expect(readJsonBody("-", { stdin: stdin(text) }, true)).rejects.toMatchObject({ exitCode: EXIT.usage, code });
  });

  it("refuses a terminal on stdin under --no-input instead of waiting", async () => {
    await expect(readJsonBody("-", { stdin: stdin("{}", true) }, false)).rejects.toMatchObject({ exitCode: EXIT.usage });
  });

  it("says on stderr that it reads a terminal, so the wait is not silent; a pipe gets no notice", async () => {
    const said: string[] = [];
    expect(await readJsonBody("-", { stdin: stdin('{"a":1}', true), warn: (l) => said.push(l) }, true)).toEqual({ a: 1 });
    expect(said).toEqual(["Reading the JSON body from stdin (end with Ctrl-D)…"]);
    said.length = 0;
    await readJsonBody("-", { stdin: stdin('{"a":1}', false), warn: (l) => said.push(l) }, true);
    expect(said).toEqual([]);
  });
});

describe("CliContext.readBody: --body - on a terminal", async () => {
  const { PassThrough } = await import("node:stream");
  const { CliContext } = await import("../../src/cli/context.js");
  const { createIO } = await import("../../src/cli/io.js");

  function context(env: Record<string, string>, input: boolean) {
    const stdin = Object.assign(Readable.from([Buffer.from('{"name":"x"}')]), { isTTY: true });
    const stderr = new PassThrough();
    const opts = { json: false, quiet: false, debug: false, color: false, input };
    const io = createIO({ stdout: new PassThrough(), stderr, stdin }, env, opts);
    const ctx = new CliContext(io, opts, { MEDIAGEN_HOME: tmp(), ...env }, "0.0.0");
    return { ctx, err: () => (stderr.read() as Buffer | null)?.toString() ?? "" };
  }

  it.each([
    ["CI set", { CI: "1" }, true],
    ["--no-input", {}, false],
  ] as Array<[string, Record<string, string>, boolean]>)("%s: a usage error at once, not a silent wait", async (_n, env, input) => {
    await expect(context(env, input).ctx.readBody("-")).rejects.toMatchObject({ exitCode: EXIT.usage, field: "--body" });
  });

  it("otherwise it reads, after saying so on stderr", async () => {
    const c = context({}, true);
    expect(await c.ctx.readBody("-")).toEqual({ name: "x" });
    expect(c.err()).toContain("Reading the JSON body from stdin (end with Ctrl-D)");
  });
});
