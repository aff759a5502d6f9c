/**
 * Issue 27, done when: the dashboard in a real headless Chromium. `mediagen ui` runs as a real
 * process over a home where this test made an image (with a hostile prompt and a webhook to
 * `mediagen listen`), a video and a generation: the gallery shows the image and a video that plays,
 * the generation's progress moves while its worker runs, the hostile prompt is text, and the
 * webhook's Resend button delivers it again to `listen`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "../cli/helpers.js";
import { recordStart } from "../../src/cli/journal.js";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import { hasChromium, launchBrowser, type Browser } from "./browser.js";
import { spawnCli, type Child } from "./spawn.js";

/** What the page's elements are to the checks run in the browser (no DOM types here). */
type VideoEl = { muted: boolean; currentTime: number; error: unknown; play(): Promise<void> };
type ImageEl = { complete: boolean; naturalWidth: number };

const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> fox & "quotes"`;

describe.skipIf(!hasChromium)("the dashboard in a browser (mediagen ui)", () => {
  let home: string;
  let ui: Child;
  let listen: Child;
  let base: string;
  let listenUrl: string;
  let browser: Browser;
  let instance: LocalInstance;
  let generationId: string;
  let imageId: string;
  let videoId: string;

  beforeAll(async () => {
    home = newHome();
    // The instance of this test runs no jobs until asked (worker "none"): the generation waits for it.
    instance = openLocalInstance({ home, worker: "none" });
    const key = instance.defaultKey();
    listen = spawnCli(home, ["listen", "--json", "--port", "0"]);
    listenUrl = (JSON.parse(await listen.next((l) => l.startsWith('{"event":"listening"'))) as { url: string }).url;
    ui = spawnCli(home, ["ui", "--port", "0", "--json"]);
    // The printed URL carries the run's secret: opened once, it leaves a cookie in the browser's context.
    const printed = (JSON.parse(await ui.next((l) => l.startsWith('{"url"'))) as { url: string }).url;
    base = `${new URL(printed).origin}/`;
    browser = await launchBrowser();
    const first = await browser.context.newPage();
    await first.goto(printed);
    expect(first.url()).toBe(base);
    await first.close();

    const engine = instance.engine(key);
    const gen = (await engine.generationStart({ prompt: "why the sea is blue", duration: 10 })) as { job_id: string };
    generationId = gen.job_id;
    recordStart(home, [
      {
        kind: "generation",
        id: generationId,
        target: "local",
        base_url: null,
        profile: "default",
        model: null,
        cost: 5,
        status: "pending",
        prompt: "why the sea is blue",
      },
    ]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    await listen?.stop();
    await instance?.stopWorker(2_000);
    await instance?.close();
  });

  it("a running job's progress moves on the gallery while its worker runs, then its result shows", async () => {
    const page = await browser.context.newPage();
    await page.goto(base);
    const card = page.locator(`li.card[data-key="local:generation:${generationId}"]`);
    await expect.poll(() => card.getAttribute("data-status")).toBe("pending");
    expect(await card.locator("progress").count()).toBe(1);
    // What the page shows, sampled while the job runs (the page's script polls once a second).
    const seen: string[] = [];
    const look = () =>
      card
        .evaluate((el) => `${el.getAttribute("data-status")}:${el.getAttribute("data-progress")}:${el.querySelector(".step")?.textContent ?? ""}`)
        .then((s) => {
          if (seen[seen.length - 1] !== s) seen.push(s);
        });
    // The first sample before the worker starts: on a loaded machine the first tick of the interval
    // can come after the worker has moved the job on.
    await look();
    const sample = setInterval(() => void look().catch(() => {}), 100);
    await instance.startWorker();
    try {
      await expect.poll(() => card.getAttribute("data-status"), { timeout: 90_000, interval: 250 }).toBe("completed");
    } finally {
      clearInterval(sample);
    }
    expect(seen[0]).toMatch(/^pending:0:/);
    // What the page shows at the end counts too: on a loaded machine the samples lag behind the page
    // (which may be reloading itself: a look then fails and is tried again).
    await expect
      .poll(async () => {
        await look().catch(() => {});
        return seen.length;
      })
      .toBeGreaterThanOrEqual(2);
    // Finished: the page reloaded itself and shows the video's thumbnail and a link to its timeline.
    await expect.poll(() => card.locator("img").count()).toBe(1);
    expect(await card.locator('a[href^="/videos/"]').count()).toBe(1);
    await page.close();
  }, 120_000);

  it("a video's page shows its timeline beside the player of its export", async () => {
    const engine = instance.engine(instance.defaultKey());
    const status = (await engine.generationStatus({ job_id: generationId })) as { result: { video_id: string } };
    const videoIdOfGeneration = status.result.video_id;
    const exp = (await engine.exportStart({ video_id: videoIdOfGeneration, format: "square" })) as { job_id: string };
    await expect
      .poll(async () => ((await engine.exportStatus({ job_id: exp.job_id })) as { status: string }).status, { timeout: 90_000, interval: 500 })
      .toBe("completed");
    const page = await browser.context.newPage();
    await page.goto(`${base}videos/${videoIdOfGeneration}`);
    const text = await page.locator("pre.timeline-text").textContent();
    expect(text).toContain(`video ${videoIdOfGeneration}  done`);
    expect(text).toMatch(/block 1 {2}0\.000–/);
    expect(await page.locator(".timeline table tbody tr").count()).toBeGreaterThan(0);
    const player = page.locator(".player video");
    const start = await player.evaluate(async (v: VideoEl) => {
      v.muted = true;
      await v.play();
      return v.currentTime;
    });
    await expect.poll(() => player.evaluate((v: VideoEl) => v.currentTime), { timeout: 20_000 }).toBeGreaterThan(start + 0.2);
    await page.close();
  }, 150_000);

  it("the gallery shows an image and a video made here, and the video plays", async () => {
    const image = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", HOSTILE, "--webhook-url", listenUrl, "--watch", "--json"], {
      home,
      timeoutMs: 90_000,
    });
    expect(image.exitCode, image.stderr).toBe(0);
    imageId = (image.json() as { asset_id: string }).asset_id;
    const video = await run(["asset", "start", "--type", "video", "--model", "vidA-3-fast", "--duration", "4", "--prompt", "a blue wave", "--watch", "--json"], {
      home,
      timeoutMs: 90_000,
    });
    expect(video.exitCode, video.stderr).toBe(0);
    videoId = (video.json() as { asset_id: string }).asset_id;

    const page = await browser.context.newPage();
    await page.goto(`${base}?kind=`);
    const img = page.locator(`li.card[data-key="local:asset:${imageId}"] img`);
    await expect.poll(() => img.evaluate((el: ImageEl) => el.complete && el.naturalWidth > 0)).toBe(true);
    const player = page.locator(`li.card[data-key="local:asset:${videoId}"] video`);
    expect(await player.count()).toBe(1);
    const start = await player.evaluate(async (v: VideoEl) => {
      v.muted = true;
      await v.play();
      return v.currentTime;
    });
    await expect.poll(() => player.evaluate((v: VideoEl) => v.currentTime), { timeout: 20_000 }).toBeGreaterThan(start + 0.2);
    expect(await player.evaluate((v: VideoEl) => v.error)).toBeNull();

    // Filters: kind=video leaves the video, text finds the image by its prompt.
    await page.goto(`${base}?kind=video`);
    expect(await page.locator(`li.card[data-key="local:asset:${videoId}"]`).count()).toBe(1);
    expect(await page.locator(`li.card[data-key="local:asset:${imageId}"]`).count()).toBe(0);
    await page.goto(`${base}?q=${encodeURIComponent("fox &")}`);
    expect(await page.locator("li.card").count()).toBe(1);
    await page.close();
  }, 200_000);

  it("a hostile prompt is shown as text: no script runs, no element is made of it", async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(base);
    const card = page.locator(`li.card[data-key="local:asset:${imageId}"]`);
    expect(await card.locator(".prompt").textContent()).toBe(HOSTILE);
    expect(await card.locator("img").getAttribute("alt")).toBe(HOSTILE);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("main script, main img[src='x']").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a webhook delivery's Resend button delivers it again to listen; the local page shows spaces, keys, ledger chart and jobs", async () => {
    const first = await listen.next((l) => l.includes(imageId) && l.startsWith("{"));
    const page = await browser.context.newPage();
    await page.goto(`${base}local`);
    expect(await page.locator("#spaces td").first().textContent()).toMatch(/^sp_/);
    expect(await page.locator("#keys").textContent()).toMatch(/mg_live_…[0-9a-f]{4}/);
    expect(await page.locator("#ledgers svg.chart polyline").count()).toBeGreaterThan(0);
    expect(await page.locator("#jobs").textContent()).toContain(generationId);
    const row = page.locator("tr[data-delivery]").filter({ hasText: listenUrl });
    await expect.poll(() => row.locator("td").nth(3).textContent(), { timeout: 30_000 }).toBe("delivered");
    await row.locator("button", { hasText: "Resend" }).click();
    await page.waitForURL(/\/local\?resent=whd_/);
    expect(await page.locator(".notice").textContent()).toMatch(/^Resent as delivery whd_/);
    const events = () => listen.stdout.filter((l) => l.includes(imageId));
    await expect.poll(() => events().length, { timeout: 60_000 }).toBe(2);
    expect(JSON.parse(events()[1]!).body).toEqual(JSON.parse(first).body);
    await page.close();
  }, 120_000);
});
