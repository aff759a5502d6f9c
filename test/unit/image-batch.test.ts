/**
 * renderImageBatched (src/media/image-batch.ts): pictures without references asked in the same turn
 * share one ffmpeg run, each the file renderImage writes; each caller keeps its own cancellation and
 * its own failure.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { renderImage, renderImageBatched } from "../../src/media/index.js";
import { clearToolsCache, getTools } from "../../src/media/tools.js";
import { tempDir } from "./media-fixtures.js";

/** The ffmpeg runs `fn` makes (the arguments MEDIAGEN_MEDIA_TRACE=args prints), and what it returned. */
async function traced<T>(fn: () => Promise<T>): Promise<{ runs: string[]; value: T }> {
  const runs: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.env.MEDIAGEN_MEDIA_TRACE = "args";
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    const line = String(chunk);
    if (line.startsWith("[media] [")) {
      if (/ffmpeg[^/"]*"$/.test(line.split(",")[0]!)) runs.push(line);
    } else if (!line.startsWith("[media] ")) return write(chunk, ...rest);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { runs, value: await fn() };
  } finally {
    process.stderr.write = write;
    delete process.env.MEDIAGEN_MEDIA_TRACE;
  }
}

const a = { width: 320, height: 240, prompt: "a red fox at dawn", label: "imgA", seed: "as_1" };
const b = { width: 200, height: 300, prompt: "waves at night", label: "imgB", seed: "as_2" };
/** What is left in `dir` besides `keep`: temp files of a render that should have gone. */
const leftovers = (dir: string, keep: string[]) => fs.readdirSync(dir).filter((f) => !keep.includes(f));

afterEach(() => {
  delete process.env.MEDIAGEN_FFMPEG;
  clearToolsCache();
});

it("two pictures asked in the same turn are drawn in one ffmpeg run, each the bytes renderImage writes", async () => {
  const dir = tempDir();
  const { runs, value } = await traced(() =>
    Promise.all([renderImageBatched({ ...a, out: path.join(dir, "a.png") }), renderImageBatched({ ...b, out: path.join(dir, "b.png") })]),
  );
  expect(runs).toHaveLength(1);
  expect(runs[0]).toContain("cards.graph");
  expect(value.map((r) => [r.width, r.height])).toEqual([
    [320, 240],
    [200, 300],
  ]);
  await renderImage({ ...a, out: path.join(dir, "a-alone.png") });
  await renderImage({ ...b, out: path.join(dir, "b-alone.png") });
  expect(fs.readFileSync(path.join(dir, "a.png")).equals(fs.readFileSync(path.join(dir, "a-alone.png")))).toBe(true);
  expect(fs.readFileSync(path.join(dir, "b.png")).equals(fs.readFileSync(path.join(dir, "b-alone.png")))).toBe(true);
  expect(fs.readFileSync(path.join(dir, "a.png")).equals(fs.readFileSync(path.join(dir, "b.png")))).toBe(false);
  expect(leftovers(dir, ["a.png", "b.png", "a-alone.png", "b-alone.png"])).toEqual([]);
});

it("one picture alone is renderImage's own run", async () => {
  const dir = tempDir();
  const { runs } = await traced(() => renderImageBatched({ ...a, out: path.join(dir, "a.png") }));
  expect(runs).toHaveLength(1);
  expect(runs[0]).not.toContain("cards.graph");
  expect(fs.existsSync(path.join(dir, "a.png"))).toBe(true);
});

/**
 * An ffmpeg whose drawing runs (image2 outputs) write their pid to `started` and wait `seconds`
 * before drawing, so a test can act while the run is surely going (npm's static ffmpeg draws a card
 * in a few milliseconds). Everything else (the runs that learn the tools) goes straight through.
 */
async function slowFfmpeg(dir: string, seconds: number): Promise<{ started: string }> {
  const real = (await getTools()).ffmpeg;
  const started = path.join(dir, "started");
  const wrapper = path.join(dir, "ffmpeg-slow");
  fs.writeFileSync(wrapper, `#!/bin/sh\ncase "$*" in *image2*) echo $$ > "${started}"; sleep ${seconds};; esac\nexec "${real}" "$@"\n`, { mode: 0o755 });
  process.env.MEDIAGEN_FFMPEG = wrapper;
  clearToolsCache();
  return { started };
}

const alive = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
};

it("a caller that cancels during the run is answered at once and gets no file; the other gets its own", async () => {
  const { started } = await slowFfmpeg(tempDir(), 1);
  const dir = tempDir();
  const ac = new AbortController();
  const first = renderImageBatched({ ...a, out: path.join(dir, "a.png"), signal: ac.signal });
  const second = renderImageBatched({ ...b, out: path.join(dir, "b.png") });
  await expect.poll(() => fs.existsSync(started)).toBe(true);
  ac.abort();
  await expect(first).rejects.toMatchObject({ aborted: true });
  await expect(second).resolves.toMatchObject({ width: 200, height: 300 });
  expect(fs.readdirSync(dir)).toEqual(["b.png"]);
});

it("a caller cancelled before the run leaves it; when every caller in the run cancels, the run is killed and nothing is written", async () => {
  const { started } = await slowFfmpeg(tempDir(), 30);
  const dir = tempDir();
  const acs = [new AbortController(), new AbortController(), new AbortController()];
  // Each outcome is taken as it comes (a rejection nobody waits for yet would be reported unhandled).
  const calls = [a, b, { ...a, seed: "as_3" }]
    .map((o, i) => renderImageBatched({ ...o, out: path.join(dir, `${i}.png`), signal: acs[i]!.signal }))
    .map((p) =>
      p.then(
        () => "drawn",
        (e: unknown) => e,
      ),
    );
  acs[0]!.abort();
  await expect.poll(() => fs.existsSync(started)).toBe(true);
  expect(await calls[0]).toMatchObject({ aborted: true });
  const pid = Number(fs.readFileSync(started, "utf8"));
  acs[1]!.abort();
  acs[2]!.abort();
  for (const c of calls.slice(1)) expect(await c).toMatchObject({ aborted: true });
  await expect.poll(() => alive(pid)).toBe(false);
  // The killed run's temp files go when its work dir settles.
  await expect.poll(() => fs.readdirSync(dir)).toEqual([]);
});

it("a run that fails is tried again one picture at a time", async () => {
  const dir = tempDir();
  // An ffmpeg that refuses to draw several cards at once (and runs everything else).
  const real = (await getTools()).ffmpeg;
  const wrapper = path.join(dir, "ffmpeg-no-batches");
  fs.writeFileSync(wrapper, `#!/bin/sh\ncase "$*" in *cards.graph*) echo "no batches here" >&2; exit 1;; esac\nexec "${real}" "$@"\n`, { mode: 0o755 });
  process.env.MEDIAGEN_FFMPEG = wrapper;
  clearToolsCache();
  const out = path.join(dir, "out");
  const { runs, value } = await traced(() =>
    Promise.all([renderImageBatched({ ...a, out: path.join(out, "a.png") }), renderImageBatched({ ...b, out: path.join(out, "b.png") })]),
  );
  expect(value.map((r) => r.width)).toEqual([320, 200]);
  // The shared run, then each picture's own (after the runs that learn the new ffmpeg).
  expect(runs.filter((r) => r.includes('"image2"')).map((r) => r.includes("cards.graph"))).toEqual([true, false, false]);
  expect(fs.readdirSync(out).sort()).toEqual(["a.png", "b.png"]);
});

it("each caller gets its own failure: a picture that cannot be written fails alone", async () => {
  const dir = tempDir();
  // Its directory is a file (mkdir says EEXIST or ENOTDIR).
  fs.writeFileSync(path.join(dir, "not-a-dir"), "");
  const out = path.join(dir, "out");
  const results = await Promise.allSettled([
    renderImageBatched({ ...a, out: path.join(out, "a.png") }),
    renderImageBatched({ ...b, out: path.join(dir, "not-a-dir", "b.png") }),
  ]);
  expect(results[0]).toMatchObject({ status: "fulfilled", value: { width: 320, height: 240 } });
  expect(results[1]).toMatchObject({ status: "rejected" });
  expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/EEXIST|ENOTDIR|not a directory/i);
  expect(fs.readdirSync(out)).toEqual(["a.png"]);
});
