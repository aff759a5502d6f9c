/**
 * What `serve` answers follows the contract strictly (issue 21): for every operation, one answer is
 * checked against the spec's full record (test/helpers/strict-responses.ts: every field the spec
 * gives, by state, no unknown enum value, no field the spec does not give; the product's own schemas
 * are tolerant since issue 34) or, for errors, against the spec's error bodies; every error class
 * (400, 401, 402, 403, 404) and a 429 are among them. The two-target scenario suite checks every
 * success of its local target the same way (the successes that need a finished job: a done video,
 * a completed export, are theirs); this file makes sure no operation and no error class is left out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestInstance, type TestInstance } from "../helpers/local.js";
import { startServer, type RunningServer } from "../../src/server/server.js";
import type { OpName } from "../../src/features/operations.js";
import { ROUTES, fillPath } from "../../src/features/routes.js";
import { strictProblems } from "../helpers/strict-responses.js";
import { ErrorBody, ErrorEnvelope } from "../../src/contract/error-schemas.js";
import { withCatalogPictures } from "../helpers/catalog-pictures.js";

let t: TestInstance;
let server: RunningServer;
let poorKey = "";
let freeKey = "";

beforeAll(async () => {
  // No worker: only the answers to the starts are checked, not the jobs they queue (a 30 s video, a 2K look).
  t = openTestInstance({ rateLimit: { limit: 1000, windowMs: 60_000 }, worker: "none" });
  // The catalog's pictures and French previews made once per test process, not by avatarList and resourceVoices here.
  await withCatalogPictures(t.home, (v) => v.language === "fr");
  server = await startServer({ instance: t, host: "127.0.0.1", port: 0 });
  poorKey = t.createSpace({ plan: "PRO", credits: 0 }).api_key;
  freeKey = t.createSpace({ plan: "free", credits: 10 }).api_key;
});

afterAll(async () => {
  await server.close(1_000);
  await t.close();
});

async function call(op: OpName, input: Record<string, unknown>, key = t.key): Promise<{ status: number; body: unknown }> {
  const route = ROUTES[op];
  const { path, rest } = fillPath(route.path, input);
  const query = route.method === "GET" && Object.keys(rest).length ? `?${new URLSearchParams(rest as Record<string, string>)}` : "";
  const res = await fetch(`${server.baseUrl.replace(/\/api\/public\/v1$/, "")}/api/public/v1${path}${query}`, {
    method: route.method,
    headers: { authorization: `Bearer ${key}`, ...(route.method === "POST" ? { "content-type": "application/json" } : {}) },
    ...(route.method === "POST" ? { body: JSON.stringify(rest) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

function expectConforms(op: OpName, r: { status: number; body: unknown }): void {
  if (r.status < 300) {
    expect(r.status, op).toBe(ROUTES[op].status);
    expect(strictProblems(op, r.body), `${op}: ${JSON.stringify(r.body)}`).toEqual([]);
  } else {
    expect(ErrorBody.safeParse(r.body).success, `${op}: ${JSON.stringify(r.body)}`).toBe(true);
  }
}

/** Ids from earlier answers (the entries run in order), for the later requests. */
const made: Record<string, string> = {};
const take = (op: OpName, body: unknown): void => {
  const b = body as Record<string, unknown>;
  if (op === "assetStart") made.asset = (b.asset_ids as string[])[0]!;
  if (op === "avatarList") {
    // The last look is the catalog's (space looks come first): one with a picture, to edit.
    const look = (body as { id: string; avatar_id: string }[]).at(-1)!;
    Object.assign(made, { catalogAvatar: look.avatar_id, catalogLook: look.id });
  }
  if (op === "avatarEdit") made.editedLook = b.look_id as string;
  if (op === "generationStart") made.job = b.job_id as string;
};

/**
 * One request per operation: a success where it is cheap without a worker (the starts are answered,
 * their jobs stay queued), else the error the spec gives it (a duplicate and an export need a done
 * video: the scenario suite checks those successes strictly).
 */
const ONE_EACH: [OpName, () => Record<string, unknown>, number][] = [
  ["folderCreate", () => ({ name: "contract" }), 201],
  ["folderList", () => ({}), 200],
  ["assetModels", () => ({ type: "video" }), 200],
  ["assetModel", () => ({ name: "vidA-3" }), 200],
  ["assetPricing", () => ({ model: "vidA-3", duration: 8 }), 200],
  ["assetStart", () => ({ type: "image", model: "imgA-4-fast", prompt: "a red square" }), 201],
  ["assetStatus", () => ({ assetId: made.asset }), 200],
  ["avatarCreate", () => ({ prompt: "a chef", format: "vertical" }), 201],
  ["avatarList", () => ({ gender: "female" }), 200],
  ["avatarEdit", () => ({ avatar_id: made.catalogAvatar, look_id: made.catalogLook, prompt: "in a kitchen" }), 201],
  ["avatarStatus", () => ({ avatar_id: made.catalogAvatar, look_id: made.editedLook }), 200],
  ["avatarLook", () => ({ avatar_id: made.catalogAvatar, look_id: made.catalogLook }), 200],
  ["avatarGet", () => ({ avatar_id: made.catalogAvatar }), 200],
  ["resourceAvatars", () => ({ gender: "female", tags: "business" }), 200],
  ["voiceList", () => ({ language: "en" }), 200],
  ["voiceGet", () => ({ id: "vc_emma" }), 200],
  ["resourceVoices", () => ({ language: "fr" }), 200],
  ["scriptGenerate", () => ({ prompt: "why cats purr", duration: 30 }), 200],
  ["generationStart", () => ({ prompt: "why cats purr", duration: 30 }), 201],
  ["generationStatus", () => ({ job_id: made.job }), 200],
  ["videoDuplicate", () => ({ video_id: "vid_missing" }), 404],
  ["exportStart", () => ({ video_id: "vid_missing" }), 404],
  ["exportStatus", () => ({ job_id: "ex_missing" }), 404],
];

describe("every operation's answer from serve follows the contract", () => {
  it("names every operation", () => {
    expect(ONE_EACH.map(([op]) => op).sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it.each(ONE_EACH)("%s", async (op, input, status) => {
    const r = await call(op, input());
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expectConforms(op, r);
    if (r.status < 300) take(op, r.body);
  });
});

describe("each error class", () => {
  it("400 (validation, the envelope with code and field)", async () => {
    const r = await call("assetStart", { type: "image", model: "imgA-4", prompt: "p", generation_count: 9 });
    expect(r.status).toBe(400);
    expect(ErrorEnvelope.safeParse(r.body).success).toBe(true);
    expect((r.body as { details: { code: string; field: string }[] }).details[0]).toMatchObject({ code: "invalid_value", field: "generation_count" });
  });

  it("401 (a key of the right shape that nobody issued)", async () => {
    const r = await call("folderList", {}, `mk_live_${"0".repeat(64)}`);
    expect(r.status).toBe(401);
    expectConforms("folderList", r);
  });

  it("402 (no credits)", async () => {
    const r = await call("generationStart", { prompt: "p", duration: 30 }, poorKey);
    expect(r.status).toBe(402);
    expectConforms("generationStart", r);
  });

  it("403 (a plan without API access)", async () => {
    const r = await call("folderList", {}, freeKey);
    expect(r.status).toBe(403);
    expectConforms("folderList", r);
  });

  it("429 (past the window's limit), the spec's body", async () => {
    // An hour's window: windows start at multiples of their length, so a minute's could end between the two requests.
    const tight = openTestInstance({ rateLimit: { limit: 1, windowMs: 3_600_000 }, worker: "none" });
    const s = await startServer({ instance: tight, host: "127.0.0.1", port: 0 });
    try {
      const get = () => fetch(`${s.baseUrl}/folder/list`, { headers: { authorization: `Bearer ${tight.key}` } });
      expect((await get()).status).toBe(200);
      const res = await get();
      expect(res.status).toBe(429);
      const body = (await res.json()) as { details: { code: string }[] };
      expect(ErrorEnvelope.safeParse(body).success).toBe(true);
      expect(body.details[0].code).toBe("rate_limit_exceeded");
    } finally {
      await s.close(1_000);
      await tight.close();
    }
  });
});
