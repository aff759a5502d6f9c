/**
 * The one table of starts (src/local/starts.ts): every start the dispatch answers is kept with its
 * operation, the fingerprint of the request as sent, the instance's time and its answer; a batch
 * re-run finds its own start there (src/features/started-jobs.ts) and never another request's.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findStartedJob, localParts } from "../../src/features/local.js";
import { lifeOf, lifeOps } from "../../src/features/lives.js";
import { ManualClock } from "../../src/local/clock.js";
import { openDatabase, schemaVersion } from "../../src/local/db/open.js";
import { requestFingerprint } from "../../src/local/request-fingerprint.js";
import { insertVideo } from "../../src/features/video/emulator/public/record.js";
import type { VideoTimeline } from "../../src/features/video/emulator/public/timeline.js";
import { openTestInstance, tempHome, type TestInstance } from "../helpers/local.js";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const CAT = { type: "image", model: "imgA-4-fast", prompt: "BATCH-CAT" };

const opened: TestInstance[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

function setup(home?: string) {
  const clock = new ManualClock(T0);
  const t = openTestInstance({ worker: "none", clock, ...(home ? { home } : {}) });
  opened.push(t);
  return { t, clock, since: new Date(T0).toISOString() };
}

interface Row {
  op: string;
  fingerprint: string;
  created_at: string;
  answer: string;
  cost_milli: number | null;
}
const rows = (t: TestInstance) => t.db.prepare("SELECT op, fingerprint, created_at, answer, cost_milli FROM starts ORDER BY seq").all() as Row[];

describe("the starts table", () => {
  it("keeps a start with its operation, the request's fingerprint, the instance's time, its answer and its cost; reads are not kept", async () => {
    const { t, clock } = setup();
    clock.advance(5000);
    const res = await t.api.assetStart({ ...CAT, generation_count: 2 } as never);
    await t.api.assetStatus({ assetId: res.asset_ids[0]! });
    const kept = rows(t);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      op: "assetStart",
      fingerprint: requestFingerprint({ ...CAT, generation_count: 2 }),
      created_at: new Date(T0 + 5000).toISOString(),
      cost_milli: Math.round((res.total_cost ?? 0) * 1000),
    });
    expect(JSON.parse(kept[0]!.answer)).toEqual(res);
  });

  it("a refused start is not kept", async () => {
    const { t } = setup();
    await expect(t.api.assetStart({ ...CAT, model: "no-such-model" } as never)).rejects.toMatchObject({ status: 400 });
    expect(rows(t)).toEqual([]);
  });

  it("finds the very request (whatever its key order) and never another of the same shape", async () => {
    const { t, since } = setup();
    const own = await t.api.assetStart(CAT as never);
    await t.api.assetStart({ ...CAT, prompt: "FOREIGN-DOG" } as never);
    const reordered = { prompt: "BATCH-CAT", model: "imgA-4-fast", type: "image" };
    expect(findStartedJob(t, { op: "assetStart", apiKey: t.key, since, body: reordered, claimed: new Set() })).toEqual({
      ids: own.asset_ids,
      cost: own.total_cost,
    });
    // The same shape, another prompt: not this request.
    expect(findStartedJob(t, { op: "assetStart", apiKey: t.key, since, body: { ...CAT, prompt: "BATCH-COW" }, claimed: new Set() })).toBeUndefined();
    // The same body under another operation is another start.
    expect(findStartedJob(t, { op: "generationStart", apiKey: t.key, since, body: CAT, claimed: new Set() })).toBeUndefined();
  });

  it("only starts at or after `since`, only in the key's space", async () => {
    const { t, clock } = setup();
    await t.api.assetStart(CAT as never);
    clock.advance(1000);
    const later = new Date(T0 + 1).toISOString();
    expect(findStartedJob(t, { op: "assetStart", apiKey: t.key, since: later, body: CAT, claimed: new Set() })).toBeUndefined();
    const other = t.createSpace({ plan: "PRO", credits: 100 });
    expect(findStartedJob(t, { op: "assetStart", apiKey: other.api_key, since: new Date(T0).toISOString(), body: CAT, claimed: new Set() })).toBeUndefined();
  });

  it("skips the starts whose ids the batch already holds, oldest first", async () => {
    const { t, clock, since } = setup();
    const first = await t.api.assetStart(CAT as never);
    clock.advance(1000);
    const second = await t.api.assetStart(CAT as never);
    const find = (claimed: string[]) => findStartedJob(t, { op: "assetStart", apiKey: t.key, since, body: CAT, claimed: new Set(claimed) });
    expect(find([])?.ids).toEqual(first.asset_ids);
    expect(find(first.asset_ids)?.ids).toEqual(second.asset_ids);
    expect(find([...first.asset_ids, ...second.asset_ids])).toBeUndefined();
  });

  it("reads what the batch needs through the operation's life: a look and its avatar, a script's text under an id of its start", async () => {
    const { t, since } = setup();
    const look = { prompt: "a lighthouse keeper", resolution: "2K" };
    const made = await t.api.avatarCreate(look as never);
    expect(findStartedJob(t, { op: "avatarCreate", apiKey: t.key, since, body: look, claimed: new Set() })).toEqual({
      ids: [made.look_id],
      cost: 2,
      look_id: made.look_id,
      avatar_id: made.avatar_id,
    });
    const script = { prompt: "Night trains." };
    const wrote = await t.api.scriptGenerate(script as never);
    const found = findStartedJob(t, { op: "scriptGenerate", apiKey: t.key, since, body: script, claimed: new Set() });
    expect(found).toMatchObject({ cost: wrote.cost, script: wrote.script });
    // The service names no script id: the start's own, the same at every reading (so a claim holds).
    expect(found!.ids).toEqual([expect.stringMatching(/^script-start-\d+$/)]);
    expect(findStartedJob(t, { op: "scriptGenerate", apiKey: t.key, since, body: script, claimed: new Set(found!.ids) })).toBeUndefined();
  });

  it("every start is kept by its handler inside the transaction that makes it (a kill after the commit leaves both or neither)", async () => {
    const { t } = setup();
    // Whether each INSERT INTO starts runs inside a transaction, per operation, as it happens.
    const seen: { op: unknown; inTransaction: boolean }[] = [];
    const prepare = t.db.prepare.bind(t.db);
    (t.db as { prepare: typeof t.db.prepare }).prepare = (sql: string) => {
      const stmt = prepare(sql);
      if (!/^INSERT INTO starts/.test(sql)) return stmt;
      const run = stmt.run.bind(stmt);
      return Object.assign(Object.create(stmt), {
        run: (...args: unknown[]) => {
          seen.push({ op: args[1], inTransaction: t.db.inTransaction });
          return (run as (...a: unknown[]) => unknown)(...args);
        },
      });
    };
    // A done video to export and duplicate, with the files a copy takes.
    const space = t.spaceForKey(t.key)!;
    const timeline: VideoTimeline = {
      version: 1,
      format: "vertical",
      width: 1080,
      height: 1920,
      fps: 30,
      duration_ms: 2000,
      options: { subtitles: true, broll: true, music: false, transitions: true },
      native_avatar: false,
      enhance_emotions: false,
      save_to_library: true,
      voice_path: "videos/v1/voice.wav",
      thumbnail_path: "videos/v1/thumbnail.jpg",
      blocks: [
        {
          voice_id: "vc_emma",
          tts_voice: "en-us+f3",
          look_id: "lk_maya_kitchen",
          start_ms: 0,
          end_ms: 2000,
          sequences: [{ text: "Hi.", look_id: "lk_maya_kitchen", look_image_path: "looks/a.png", sentences: [], start_ms: 0, end_ms: 2000 }],
        },
      ],
    };
    for (const f of [timeline.voice_path, timeline.thumbnail_path]) {
      fs.mkdirSync(path.dirname(path.join(t.mediaDir, f)), { recursive: true });
      fs.writeFileSync(path.join(t.mediaDir, f), "x");
    }
    const videoId = "65f0c2a1b3e4d5f6a7b8c9d0";
    insertVideo(t.db, {
      id: videoId,
      space_id: space.id,
      status: "done",
      origin: "generation",
      generation_id: null,
      parent_video_id: null,
      created_at: t.nowIso(),
      timeline,
    });

    await t.api.assetStart(CAT as never);
    const look = await t.api.avatarCreate({ prompt: "a lighthouse keeper" } as never);
    await t.api.avatarEdit({ avatar_id: "av_maya", look_id: "lk_maya_kitchen", prompt: "in a red coat" } as never);
    await t.api.generationStart({ prompt: "why cats purr", duration: 30, voice_id: "vc_emma" } as never);
    await t.api.exportStart({ video_id: videoId } as never);
    await t.api.scriptGenerate({ prompt: "Night trains." } as never);
    await t.api.videoDuplicate({ video_id: videoId } as never);
    await t.api.folderCreate({ name: "Clips" } as never);
    expect(look.look_id).toBeTruthy();
    // Every operation whose life is a start was made here (a new one fails this until it is added above).
    const starts = lifeOps().filter((op) => lifeOf(op).effect !== "read");
    expect([...seen.map((x) => x.op)].sort()).toEqual([...starts].sort());
    expect(seen.filter((x) => !x.inTransaction)).toEqual([]);
  });

  it("an older database gains the table by its migration, and keeps starts from then on", async () => {
    const home = tempHome();
    const { t: first } = setup(home);
    const file = first.dbPath;
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    // The database as the release before the table left it.
    const { migrations } = localParts;
    const old = openDatabase(path.join(home, "old.sqlite"), migrations.slice(0, -1));
    expect(schemaVersion(old)).toBe(migrations.length - 1);
    expect(old.prepare("SELECT name FROM sqlite_master WHERE name = 'starts'").get()).toBeUndefined();
    old.close();
    const { default: fs } = await import("node:fs");
    for (const ext of ["", "-wal", "-shm"]) fs.rmSync(`${file}${ext}`, { force: true });
    fs.copyFileSync(path.join(home, "old.sqlite"), file);

    const { t, since } = setup(home);
    expect(schemaVersion(t.db)).toBe(migrations.length);
    const own = await t.api.assetStart(CAT as never);
    expect(findStartedJob(t, { op: "assetStart", apiKey: t.key, since, body: CAT, claimed: new Set() })?.ids).toEqual(own.asset_ids);
  });
});
