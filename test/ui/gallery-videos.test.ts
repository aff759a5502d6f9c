/**
 * The gallery, looked at as a new user would (issue 38, and issue 36 item 8): one card per video
 * (its generation, with the exports made of it), a script's or a plan's video says what it is of
 * (not "(no prompt recorded)"), and the instance's own jobs (made by apps over HTTP, in any space,
 * unknown to this machine's history) are there too, filterable by space.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "../cli/helpers.js";
import { historyFile } from "../../src/cli/journal.js";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import { createUiHandler } from "../../src/ui/handler.js";
import { PageGuard } from "../../src/ui/guard.js";

describe("the gallery: one card per video, captions, the instance's own jobs", () => {
  let home: string;
  let instance: LocalInstance;
  let server: RunningServer;
  let gen: string;
  let videoId: string;
  let exportId: string;
  let scriptGen: string;
  let appAsset: string;
  let appSpace: string;
  /** The run's secret, as a browser holds it once it opened the printed URL. */
  let cookie = "";

  beforeAll(async () => {
    home = newHome();
    const g = await run(["generate", "--prompt", "a lighthouse at dusk", "--duration", "10", "--watch", "--json"], { home, timeoutMs: 90_000 });
    expect(g.exitCode, g.stderr).toBe(0);
    ({ job_id: gen } = g.json<{ job_id: string }>());
    videoId = g.json<{ result: { video_id: string } }>().result.video_id;
    const e = await run(["export", videoId, "--watch", "--json"], { home, timeoutMs: 90_000 });
    expect(e.exitCode, e.stderr).toBe(0);
    exportId = e.json<{ job_id: string }>().job_id;
    const s = await run(["generate", "--script", "Hello from the script.\nA second line.", "--voice", "vc_emma", "--avatar", "lk_maya_kitchen", "--json"], { home });
    expect(s.exitCode, s.stderr).toBe(0);
    scriptGen = s.json<{ job_id: string }>().job_id;
    // An app's job, in another space, that this machine's history does not know (made over HTTP).
    const key = (await run(["local", "keys", "create", "--plan", "PRO", "--credits", "10", "--json"], { home })).json<{ api_key: string; space_id: string }>();
    appSpace = key.space_id;
    const a = await run(["asset", "start", "--type", "image", "--model", "imgA-4", "--prompt", "an app's red kite", "--json"], {
      home,
      env: { MEDIAGEN_API_KEY: key.api_key },
    });
    expect(a.exitCode, a.stderr).toBe(0);
    appAsset = a.json<{ asset_ids: string[] }>().asset_ids[0]!;
    const lines = fs.readFileSync(historyFile(home), "utf8").split("\n");
    fs.writeFileSync(historyFile(home), lines.filter((l) => !l.includes(appAsset)).join("\n"));
    instance = openLocalInstance({ home, worker: "none" });
    const guard = new PageGuard({ allowRemote: false });
    cookie = `${guard.cookieName}=${guard.secret}`;
    server = await startServer({ instance, port: 0, pages: (urls) => createUiHandler({ instance, home, urls: () => urls, guard }) });
  }, 240_000);

  afterAll(async () => {
    await server?.close(100);
    await instance?.close();
  });

  const page = async (q = "") => (await fetch(`${server.origin}/${q}`, { headers: { cookie } })).text();
  const cards = (html: string) => html.split('<li class="card"').slice(1);

  it("one card for the video: its generation, listing its export; no card of its own for the export", async () => {
    const html = await page();
    const ofVideo = cards(html).filter((c) => c.includes(videoId) || c.includes(exportId));
    expect(ofVideo).toHaveLength(1);
    expect(ofVideo[0]).toContain(`data-key="local:generation:${gen}"`);
    expect(ofVideo[0]).toContain(exportId);
    expect(ofVideo[0]).toContain("a lighthouse at dusk");
    expect(html).not.toContain(`data-key="local:export:${exportId}"`);
  });

  it("a script's video says its first line, not (no prompt recorded)", async () => {
    const card = cards(await page()).find((c) => c.includes(scriptGen))!;
    expect(card).toContain("Script: Hello from the script.");
    expect(card).not.toContain("no prompt recorded");
  });

  it("the instance's own jobs are there, in their space, and the space filter narrows to them", async () => {
    const html = await page();
    expect(html).toContain(`data-key="local:asset:${appAsset}"`);
    expect(html).toContain(`<option value="${appSpace}"`);
    const only = await page(`?space=${appSpace}`);
    expect(cards(only).map((c) => /data-key="([^"]+)"/.exec(c)?.[1])).toEqual([`local:asset:${appAsset}`]);
  });
});
