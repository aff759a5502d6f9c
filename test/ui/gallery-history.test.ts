/**
 * Issue 27: the gallery is the history on any target. A hosted job shows the file `download` saved
 * (served from the path the history recorded, and only that path), a hosted job still running is
 * not polled (the instance cannot say), and the local instance's own view wins for local jobs.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome } from "../cli/helpers.js";
import { recordStart, recordUpdate } from "../../src/cli/journal.js";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { createUiHandler } from "../../src/ui/handler.js";
import { PageGuard } from "../../src/ui/guard.js";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
const hostedStart = (id: string, status: string) => ({
  kind: "asset" as const,
  id,
  target: "hosted" as const,
  base_url: "https://api.example",
  profile: "default",
  model: "imgA-4",
  cost: 1,
  status,
  prompt: `hosted ${id}`,
});

/** The run's secret, as a browser holds it once it opened the printed URL. */
let cookie = "";
const fetch = (url: string, init: RequestInit = {}) => globalThis.fetch(url, { ...init, headers: { cookie, ...(init.headers as Record<string, string> | undefined) } });

describe("the gallery over the history", () => {
  let home: string;
  let instance: LocalInstance;
  let running: RunningServer;
  const done = "a".repeat(24);
  const pending = "b".repeat(24);

  beforeAll(async () => {
    home = newHome();
    const saved = path.join(home, "out", `${done}.png`);
    fs.mkdirSync(path.dirname(saved), { recursive: true });
    fs.writeFileSync(saved, PNG);
    recordStart(home, [hostedStart(done, "generating"), hostedStart(pending, "generating")]);
    recordUpdate(home, [{ kind: "asset", id: done, target: "hosted", status: "completed", saved }]);
    instance = openLocalInstance({ home, worker: "none" });
    const guard = new PageGuard({ allowRemote: false });
    cookie = `${guard.cookieName}=${guard.secret}`;
    running = await startServer({ instance, port: 0, pages: (urls) => createUiHandler({ instance, home, urls: () => urls, guard }) });
  });

  afterAll(async () => {
    await running?.close(100);
    await instance?.close();
  });

  it("shows a hosted job's saved file, served from the history's path with ranges", async () => {
    const page = await (await fetch(`${running.origin}/?target=hosted`)).text();
    const src = `/ui/saved?key=${encodeURIComponent(`hosted:asset:${done}`)}`;
    expect(page).toContain(`<img src="${src.replace(/&/g, "&amp;")}"`);
    const file = await fetch(`${running.origin}${src}`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    const part = await fetch(`${running.origin}${src}`, { headers: { range: "bytes=0-7" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(PNG.subarray(0, 8))).toBe(true);
    // Served as the server's media (one implementation), with the pages' headers: never cached.
    const head = await fetch(`${running.origin}${src}`, { method: "HEAD" });
    expect([head.status, head.headers.get("content-length"), head.headers.get("cache-control")]).toEqual([200, String(PNG.length), "no-store"]);
    expect(head.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const past = await fetch(`${running.origin}${src}`, { headers: { range: `bytes=${PNG.length}-` } });
    expect([past.status, past.headers.get("content-range"), past.headers.get("cache-control")]).toEqual([416, `bytes */${PNG.length}`, "no-store"]);
    // Only files the history names: any other key, or a job without a saved file, is a 404.
    for (const key of [`hosted:asset:${pending}`, "hosted:asset:../../etc/passwd", "local:asset:/etc/passwd"]) {
      expect((await fetch(`${running.origin}/ui/saved?key=${encodeURIComponent(key)}`)).status, key).toBe(404);
    }
  });

  it("refuses a saved file swapped for a symbolic link (to a file outside) instead of following it", async () => {
    const id = "c".repeat(24);
    const saved = path.join(home, "out", `${id}.png`);
    fs.writeFileSync(saved, PNG);
    recordStart(home, [hostedStart(id, "generating")]);
    recordUpdate(home, [{ kind: "asset", id, target: "hosted", status: "completed", saved }]);
    const src = `${running.origin}/ui/saved?key=${encodeURIComponent(`hosted:asset:${id}`)}`;
    expect((await fetch(src)).status).toBe(200);
    // The file the history names becomes a link to a secret of the user's.
    const secret = path.join(home, "secret.txt");
    fs.writeFileSync(secret, "private key material");
    fs.rmSync(saved);
    fs.symlinkSync(secret, saved);
    const r = await fetch(src);
    const body = await r.text();
    expect(r.status).toBe(403);
    expect(body).not.toContain("private key material");
  });

  it("does not poll a hosted job the instance cannot report on; filters narrow the list", async () => {
    const page = await (await fetch(`${running.origin}/?status=generating`)).text();
    expect(page).toContain(`data-key="hosted:asset:${pending}"`);
    expect(page).not.toContain("data-job=");
    expect(page).not.toContain(done);
    const text = await (await fetch(`${running.origin}/?q=${encodeURIComponent(`hosted ${done}`)}`)).text();
    expect(text).toContain(`data-key="hosted:asset:${done}"`);
    expect(text).not.toContain(`data-key="hosted:asset:${pending}"`);
    const jobs = await (await fetch(`${running.origin}/ui/api/jobs?key=${encodeURIComponent(`hosted:asset:${pending}`)}`)).json();
    expect(jobs).toEqual({ jobs: [] });
  });

  it("pages are GET only: another method on / is the API's JSON 404", async () => {
    const r = await fetch(`${running.origin}/`, { method: "POST" });
    expect(r.status).toBe(404);
    expect(r.headers.get("content-type")).toContain("application/json");
  });
});
