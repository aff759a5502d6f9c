/**
 * Debian's Chromium driven by playwright-core (which downloads no browser), for the dashboard's
 * browser tests. Where no Chromium is installed the tests are skipped with the reason printed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = process.env.MEDIAGEN_TEST_CHROMIUM ?? "/usr/bin/chromium";
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`skipping the dashboard's browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile, no network services of its own, no sandbox (containers). */
export async function launchBrowser(viewport = { width: 1200, height: 800 }): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "mg-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
