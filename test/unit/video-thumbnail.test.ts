/**
 * A video's thumbnail (src/features/video/emulator/public/thumbnail.ts): the first look's picture at the video's
 * aspect, drawn once per picture and size and kept in `<home>/local/cache/thumbnails` (pruned as the
 * fetch cache is, least recently used first), so the next video on the same look copies it; a
 * changed picture or another size is drawn again.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, expect, it } from "vitest";
import { CATALOG_AVATARS, catalogLookRelPath } from "../../src/features/avatar/emulator/public/catalog.js";
import { cachedThumbnail, makeThumbnail, thumbnailSize } from "../../src/features/video/emulator/public/thumbnail.js";
import type { VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";
import { readImageFileSize } from "../../src/media/image-header.js";
import { renderImage } from "../../src/media/index.js";
import { instancePaths } from "../../src/local/storage.js";
import { newHome } from "../helpers/cli.js";
import { tempDir } from "./media-fixtures.js";

let mediaDir: string;
const look = "catalog/looks/lk_test.png";

/** A one-sequence timeline opening on the look, at the video's size. */
function timeline(width: number, height: number): Pick<VideoTimeline, "blocks" | "width" | "height"> {
  const sequence = { text: "Hello.", start_ms: 0, end_ms: 1000, look_id: "lk_test", look_image_path: look };
  return { width, height, blocks: [{ voice_id: null, tts_voice: null, look_id: "lk_test", start_ms: 0, end_ms: 1000, sequences: [sequence as never] }] };
}

const cacheDir = () => path.join(path.dirname(mediaDir), "cache", "thumbnails");
const cached = () => (fs.existsSync(cacheDir()) ? fs.readdirSync(cacheDir()).sort() : []);

beforeAll(async () => {
  mediaDir = path.join(tempDir(), "local", "media");
  fs.mkdirSync(path.join(mediaDir, "catalog", "looks"), { recursive: true });
  await renderImage({ out: path.join(mediaDir, look), width: 300, height: 400, prompt: "a look" });
});

it("draws the look's thumbnail once per picture and size, and copies it for the next video", async () => {
  await makeThumbnail(mediaDir, timeline(1080, 1920), "videos/a/thumbnail.jpg");
  const first = fs.readFileSync(path.join(mediaDir, "videos/a/thumbnail.jpg"));
  expect(readImageFileSize(path.join(mediaDir, "videos/a/thumbnail.jpg"))).toMatchObject({ type: "jpeg", width: 360, height: 640 });
  const [kept] = cached();
  expect(kept).toMatch(/^[0-9a-f]{32}\.jpg$/);
  expect(fs.readFileSync(path.join(cacheDir(), kept!))).toEqual(first);

  // The next video on the look is given what the cache holds (marked here, to tell a copy from a draw).
  const marked = Buffer.concat([first, Buffer.from("copied")]);
  fs.writeFileSync(path.join(cacheDir(), kept!), marked);
  const dayAgo = new Date(Date.now() - 86_400_000);
  fs.utimesSync(path.join(cacheDir(), kept!), dayAgo, dayAgo);
  await makeThumbnail(mediaDir, timeline(1080, 1920), "videos/b/thumbnail.jpg");
  expect(fs.readFileSync(path.join(mediaDir, "videos/b/thumbnail.jpg"))).toEqual(marked);
  // Marked as used: the least recently used go first when the cache is full.
  expect(Date.now() - fs.statSync(path.join(cacheDir(), kept!)).mtimeMs).toBeLessThan(60_000);

  // Another size is drawn (and kept) on its own.
  await makeThumbnail(mediaDir, timeline(1920, 1080), "videos/c/thumbnail.jpg");
  expect(readImageFileSize(path.join(mediaDir, "videos/c/thumbnail.jpg"))).toMatchObject({ type: "jpeg", width: 640, height: 360 });
  expect(cached()).toHaveLength(2);
  expect(fs.readdirSync(path.join(mediaDir, "videos/c"))).toEqual(["thumbnail.jpg"]);
});

it("draws a changed picture again", async () => {
  await makeThumbnail(mediaDir, timeline(1080, 1080), "videos/d/thumbnail.jpg");
  const before = fs.readFileSync(path.join(mediaDir, "videos/d/thumbnail.jpg"));
  await renderImage({ out: path.join(mediaDir, look), width: 300, height: 400, prompt: "another look", seed: "other" });
  await makeThumbnail(mediaDir, timeline(1080, 1080), "videos/e/thumbnail.jpg");
  expect(fs.readFileSync(path.join(mediaDir, "videos/e/thumbnail.jpg"))).not.toEqual(before);
});

it("opens a video without a look or media on a title card of its first words: drawn at the thumbnail's size, straight to JPEG", async () => {
  const sequence = { text: "Only words here.", start_ms: 0, end_ms: 1000 };
  const t = { width: 1920, height: 1080, blocks: [{ voice_id: null, tts_voice: null, look_id: null, start_ms: 0, end_ms: 1000, sequences: [sequence as never] }] };
  const runs: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.env.MEDIAGEN_MEDIA_TRACE = "1";
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    if (String(chunk).startsWith("[media] ")) runs.push(String(chunk));
    else return write(chunk, ...rest);
    return true;
  }) as typeof process.stderr.write;
  try {
    await makeThumbnail(mediaDir, t, "videos/f/thumbnail.jpg");
  } finally {
    process.stderr.write = write;
    delete process.env.MEDIAGEN_MEDIA_TRACE;
  }
  const out = path.join(mediaDir, "videos/f/thumbnail.jpg");
  expect(readImageFileSize(out)).toMatchObject({ type: "jpeg", width: 640, height: 360 });
  expect(runs.filter((l) => /^\[media\] ffmpeg ok/.test(l))).toHaveLength(runs.length);
  expect(runs).toHaveLength(1);
  expect(fs.readdirSync(path.join(mediaDir, "videos/f"))).toEqual(["thumbnail.jpg"]);
  // A card, not a blank: the JPEG of a uniform frame this size is a few kB.
  expect(fs.statSync(out).size).toBeGreaterThan(8_000);
});

it("a test home's seeded thumbnail of a catalog look is the file that home would draw, under the key it would look for", async () => {
  // test/setup/catalog-seed.ts draws every catalog look's portrait thumbnail in one run and
  // newHome() links them into the home's cache: a video opening on a look then copies, not draws.
  const home = newHome();
  const homeMedia = instancePaths(home).mediaDir;
  const rel = catalogLookRelPath(CATALOG_AVATARS[0]!.looks[0]!.id);
  const key = cachedThumbnail(homeMedia, rel, thumbnailSize(1080, 1920))!;
  expect(fs.existsSync(key), key).toBe(true);
  // Drawn afresh, in a media dir of its own with the same picture, by makeThumbnail.
  const fresh = path.join(tempDir(), "local", "media");
  fs.mkdirSync(path.dirname(path.join(fresh, rel)), { recursive: true });
  fs.copyFileSync(path.join(homeMedia, rel), path.join(fresh, rel));
  const t = { ...timeline(1080, 1920) };
  t.blocks = [{ ...t.blocks[0]!, sequences: [{ ...t.blocks[0]!.sequences[0]!, look_image_path: rel } as never] }];
  await makeThumbnail(fresh, t, "videos/g/thumbnail.jpg");
  expect(fs.readFileSync(path.join(fresh, "videos/g/thumbnail.jpg")).equals(fs.readFileSync(key))).toBe(true);
  // And a video in the seeded home is given the seeded file.
  await makeThumbnail(homeMedia, t, "videos/h/thumbnail.jpg");
  expect(fs.readFileSync(path.join(homeMedia, "videos/h/thumbnail.jpg")).equals(fs.readFileSync(key))).toBe(true);
});
