/**
 * probe() asks ffprobe once per file state: the same unchanged file again is answered from memory,
 * a rewritten file (same name, same size) is probed again. ffprobe is counted through a wrapper.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, expect, it } from "vitest";
import { getTools, probe, type Tools } from "../../src/media/index.js";
import { makeVideo, tempDir } from "./media-fixtures.js";

let tools: Tools;
let dir: string;
let counted: Tools;
const runs = () => (fs.existsSync(path.join(dir, "runs")) ? fs.readFileSync(path.join(dir, "runs"), "utf8").length : 0);

beforeAll(async () => {
  tools = await getTools();
  dir = tempDir();
  const wrapper = path.join(dir, "ffprobe-counted");
  fs.writeFileSync(wrapper, `#!/bin/sh\nprintf x >> ${JSON.stringify(path.join(dir, "runs"))}\nexec ${JSON.stringify(tools.ffprobe)} "$@"\n`, { mode: 0o755 });
  counted = { ...tools, ffprobe: wrapper };
});

it.skipIf(process.platform === "win32")("probes an unchanged file once, and a rewritten one again", async () => {
  const clip = makeVideo(tools, path.join(dir, "clip.mp4"), { seconds: 1 });
  const first = await probe(clip, { tools: counted });
  expect(first).toMatchObject({ width: 160, height: 120, videoCodec: "h264" });
  first.width = 1; // a caller's copy: changing it changes nothing kept
  expect(await probe(clip, { tools: counted })).toMatchObject({ width: 160, height: 120 });
  expect(runs()).toBe(1);

  // Rewritten in place, same size: another file state.
  const bytes = fs.readFileSync(clip);
  fs.writeFileSync(clip, bytes);
  await probe(clip, { tools: counted });
  expect(runs()).toBe(2);

  // Another file with the same name is another file.
  const other = makeVideo(tools, path.join(dir, "other.mp4"), { seconds: 1, size: "320x240" });
  fs.renameSync(other, clip);
  expect(await probe(clip, { tools: counted })).toMatchObject({ width: 320, height: 240 });
  expect(runs()).toBe(3);
});
