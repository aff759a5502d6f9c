import { afterEach, describe, expect, test, vi } from "vitest";
import { ApiError } from "../../src/engine/errors.js";
import { loadLocalParts } from "../../src/features/local.js";
import type { HandlerTable, RequestContext } from "../../src/local/types.js";
import { openTestInstance, type TestInstance } from "../helpers/local.js";

// Every feature loaded, so entries can be inspected and replaced (they otherwise load on first use).
const localParts = await loadLocalParts();
const { handlers } = localParts;

const open: TestInstance[] = [];
const original: HandlerTable = { ...handlers };
afterEach(async () => {
  for (const k of Object.keys(handlers) as (keyof HandlerTable)[]) delete handlers[k];
  Object.assign(handlers, original);
  vi.restoreAllMocks();
  for (const t of open.splice(0)) await t.close();
});
function setup() {
  const t = openTestInstance({ worker: "none" });
  open.push(t);
  return t;
}
const dispatch = (t: TestInstance, op: "folderList" | "folderCreate", input: Record<string, unknown> = {}, simulate?: string) =>
  t.service.dispatch(`Bearer ${t.key}`, op, input, { urls: t.fileUrls(), ...(simulate ? { simulate } : {}) });

describe("dispatch", () => {
  test("an operation without a rule answers 501 with the envelope", async () => {
    const t = setup();
    delete handlers.folderList;
    const res = await dispatch(t, "folderList");
    expect(res.status).toBe(501);
    expect(res.body).toEqual({
      error: "Not implemented by the local instance",
      details: [{ code: "not_implemented", message: "folderList is not implemented by the local instance" }],
    });
    expect(res.rateLimit?.remaining).toBe(99);
  });

  test("an ApiError from a rule becomes its status and body", async () => {
    const t = setup();
    handlers.folderList = () => {
      throw ApiError.of("asset_not_found", "Asset not found");
    };
    const res = await dispatch(t, "folderList");
    expect(res).toMatchObject({ status: 404, body: { error: "Asset not found", details: [{ code: "asset_not_found" }] } });
  });

  test("anything else is a 500 envelope with no stack, silent unless MEDIAGEN_DEBUG", async () => {
    const t = setup();
    handlers.folderList = async () => {
      throw new TypeError("secret internals at /home/x/.mediagen");
    };
    const writes: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => (writes.push(String(s)), true));
    const prev = process.env.MEDIAGEN_DEBUG;
    delete process.env.MEDIAGEN_DEBUG;
    const res = await dispatch(t, "folderList");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "Internal server error",
      details: [{ code: "internal_error", message: "The local instance failed to handle this request" }],
    });
    expect(JSON.stringify(res.body)).not.toMatch(/secret|TypeError|at /);
    expect(writes).toEqual([]);
    process.env.MEDIAGEN_DEBUG = "1";
    await dispatch(t, "folderList");
    if (prev === undefined) delete process.env.MEDIAGEN_DEBUG;
    else process.env.MEDIAGEN_DEBUG = prev;
    expect(writes.join("")).toMatch(/folderList failed: TypeError/);
  });

  test("the rule gets the space, simulate and urls; the success status comes from the operations table", async () => {
    const t = setup();
    let seen: RequestContext | undefined;
    handlers.folderCreate = (ctx, input) => {
      seen = ctx;
      return { id: "0".repeat(24), name: String(input.name), type: "assets", parent_folder_id: null, created_at: "x" };
    };
    const res = await dispatch(t, "folderCreate", { name: "n" }, "fail:render_failed");
    expect(res.status).toBe(201);
    expect(seen?.space.id).toBe(t.spaceForKey(t.key)!.id);
    expect(seen?.simulate).toBe("fail:render_failed");
    expect(seen?.urls.media("a/b.png")).toBe(`file://${t.mediaDir}/a/b.png`);
  });

  test("a request that queued a job kicks the worker; one that did not, does not", async () => {
    const t = setup();
    const kick = vi.spyOn(t, "kick");
    await dispatch(t, "folderList");
    expect(kick).not.toHaveBeenCalled();
    handlers.folderList = (ctx) => {
      ctx.instance.tx(() => ctx.instance.jobs.enqueue({ kind: "noop" }));
      return { folders: [] };
    };
    await dispatch(t, "folderList");
    expect(kick).toHaveBeenCalledTimes(1);
  });
});

describe("LocalEngine", () => {
  test("passes bodies through JSON both ways and forwards simulate", async () => {
    const t = setup();
    let got: unknown;
    let simulate: string | undefined;
    handlers.folderCreate = (ctx, input) => {
      got = input;
      simulate = ctx.simulate;
      return { id: "1".repeat(24), name: "n", type: "assets", parent_folder_id: null, created_at: "t", extra: undefined, when: new Date(0) } as never;
    };
    const out = await t.api.folderCreate({ name: "n", parent_folder_id: undefined } as never, { simulate: "fail" });
    expect(got).toEqual({ name: "n" });
    expect(Object.keys(got as object)).toEqual(["name"]);
    expect(simulate).toBe("fail");
    expect(out).toEqual({ id: "1".repeat(24), name: "n", type: "assets", parent_folder_id: null, created_at: "t", when: "1970-01-01T00:00:00.000Z" });
  });

  test("an aborted signal stops the call before it is sent", async () => {
    const t = setup();
    const ac = new AbortController();
    ac.abort();
    await expect(t.api.folderList({}, { signal: ac.signal })).rejects.toThrow();
    expect(t.api.lastRateLimit()).toBeUndefined();
  });

  test("target is local; close leaves the instance open unless asked", async () => {
    const t = setup();
    expect(t.api.target).toBe("local");
    await t.api.close();
    expect(t.isClosed).toBe(false);
    const owner = t.engine(t.key, undefined, { closeInstance: true });
    await owner.close();
    expect(t.isClosed).toBe(true);
  });
});
