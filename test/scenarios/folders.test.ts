import { expect, it } from "vitest";
import { apiError, forBothTargets } from "./harness.js";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

forBothTargets("folders", (t) => {
  it("creates an assets folder by default, with the spec's fields", async () => {
    const engine = t.engine();
    const f = await engine.folderCreate({ name: "Clips" });
    expect(Object.keys(f).sort()).toEqual(["created_at", "id", "name", "parent_folder_id", "type"]);
    expect(f).toMatchObject({ name: "Clips", type: "assets", parent_folder_id: null });
    expect(f.id).toMatch(/^[0-9a-f]{24}$/);
    expect(f.created_at).toMatch(ISO);
  });

  it("nests a folder under a parent of the same type", async () => {
    const engine = t.engine();
    const parent = await engine.folderCreate({ name: "Finals", type: "videos" });
    const child = await engine.folderCreate({ name: "Cuts", type: "videos", parent_folder_id: parent.id });
    expect(child).toMatchObject({ type: "videos", parent_folder_id: parent.id });
    const root = await engine.folderCreate({ name: "Root", parent_folder_id: null });
    expect(root.parent_folder_id).toBeNull();
  });

  const rejections: { name: string; input: Record<string, unknown>; setup?: "videos-parent" | "foreign-parent"; code: string; field: string }[] = [
    { name: "missing name", input: {}, code: "missing_field", field: "name" },
    { name: "blank name", input: { name: "   " }, code: "missing_field", field: "name" },
    { name: "null name", input: { name: null }, code: "missing_field", field: "name" },
    { name: "name not a string", input: { name: 42 }, code: "invalid_value", field: "name" },
    { name: "unknown type", input: { name: "x", type: "images" }, code: "invalid_value", field: "type" },
    { name: "unknown parent", input: { name: "x", parent_folder_id: "0123456789abcdef01234567" }, code: "invalid_value", field: "parent_folder_id" },
    { name: "parent of another type", input: { name: "x", type: "assets" }, setup: "videos-parent", code: "invalid_value", field: "parent_folder_id" },
    { name: "parent of another space", input: { name: "x", type: "assets" }, setup: "foreign-parent", code: "invalid_value", field: "parent_folder_id" },
  ];
  for (const r of rejections) {
    it(`rejects ${r.name}: 400 ${r.code} on ${r.field}`, async () => {
      const engine = t.engine();
      const input = { ...r.input };
      if (r.setup === "videos-parent") input.parent_folder_id = (await engine.folderCreate({ name: "V", type: "videos" })).id;
      if (r.setup === "foreign-parent") input.parent_folder_id = (await t.engine().folderCreate({ name: "theirs" })).id;
      const err = await apiError(engine.folderCreate(input as never));
      expect(err.status).toBe(400);
      expect(err.code).toBe(r.code);
      expect(err.field).toBe(r.field);
      expect(err.body).toMatchObject({ error: expect.any(String), details: [{ code: r.code, field: r.field, message: expect.any(String) }] });
      // Nothing half-written: the space still has no folder of that name.
      const names = (await engine.folderList()).folders.map((f) => f.name);
      expect(names).not.toContain("x");
    });
  }

  it("lists the space's folders in creation order, filtered by type", async () => {
    const engine = t.engine();
    expect(await engine.folderList()).toEqual({ folders: [] });
    const a = await engine.folderCreate({ name: "A" });
    const v = await engine.folderCreate({ name: "V", type: "videos" });
    const b = await engine.folderCreate({ name: "B", type: "assets" });
    await t.engine().folderCreate({ name: "someone else's" });
    expect((await engine.folderList()).folders).toEqual([a, v, b]);
    expect((await engine.folderList({ type: "assets" })).folders).toEqual([a, b]);
    expect((await engine.folderList({ type: "videos" })).folders).toEqual([v]);
  });

  it("rejects an unknown list filter", async () => {
    // Deliberately invalid: "images" is not a folder type, so the strict request type needs a cast.
    const err = await apiError(t.engine().folderList({ type: "images" as never }));
    expect([err.status, err.code, err.field]).toEqual([400, "invalid_value", "type"]);
  });
});
