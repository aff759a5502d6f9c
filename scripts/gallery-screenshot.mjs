#!/usr/bin/env node
/**
 * Takes the README's screenshot of the dashboard (docs/gallery.png): a throwaway home where the
 * built CLI makes a few images and a video on the local target, `mediagen ui` over it, and Debian's
 * Chromium (driven by playwright-core) at 1200×800. Run after `npm run build`:
 *   node scripts/gallery-screenshot.mjs [out.png]
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(ROOT, "bin", "mediagen.js");
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, "docs", "gallery.png"));
const home = fs.mkdtempSync(path.join(os.tmpdir(), "mg-shot-"));
const env = { ...process.env, MEDIAGEN_HOME: home, CI: "1" };
const mg = (...args) => execFileSync(process.execPath, [BIN, ...args], { env, encoding: "utf8" });

const images = [
  ["a red fox in fresh snow, golden hour", "16:9"],
  ["isometric city block at night, neon signs", "1:1"],
  ["watercolor lighthouse on a cliff", "9:16"],
  ["macro photo of a dew drop on a leaf", "1:1"],
  ["retro robot reading a newspaper", "4:3"],
];
for (const [prompt, ratio] of images) mg("asset", "start", "--type", "image", "--model", "imgA-4", "--aspect-ratio", ratio, "--prompt", prompt, "--watch", "-q");
mg("asset", "start", "--type", "video", "--model", "vidA-3-fast", "--duration", "4", "--prompt", "ocean waves rolling onto a beach", "--watch", "-q");
// A failed job shows too (exit 7 is expected).
try {
  execFileSync(
    process.execPath,
    [BIN, "asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "a paper boat on a puddle", "--simulate", "fail", "--watch", "-q"],
    { env, stdio: "ignore" },
  );
} catch {}

const ui = spawn(process.execPath, [BIN, "ui", "--port", "0", "--json"], { env, stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((resolve) => readline.createInterface({ input: ui.stdout }).once("line", (l) => resolve(JSON.parse(l).url)));
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "mg-shot-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1200, height: 800 },
  colorScheme: "light",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => [...document.images].every((i) => i.complete) && [...document.querySelectorAll("video")].every((v) => v.readyState >= 2));
  await page.screenshot({ path: OUT });
  console.log(`${OUT}: ${fs.statSync(OUT).size} bytes`);
} finally {
  await context.close();
  ui.kill("SIGINT");
  fs.rmSync(profile, { recursive: true, force: true });
}
