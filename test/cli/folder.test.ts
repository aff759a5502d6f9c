import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { newHome, run } from "./helpers.js";

interface Folder {
  id: string;
  name: string;
  type: string;
  parent_folder_id: string | null;
  created_at: string;
}

describe("folder create / list on the local instance, with no configuration", () => {
  let home: string;
  beforeAll(() => {
    home = newHome();
  });

  it("create --json prints exactly the folder record on stdout", async () => {
    const r = await run(["folder", "create", "--name", "Clips", "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const f = r.json<Folder>();
    expect(Object.keys(f).sort()).toEqual(["created_at", "id", "name", "parent_folder_id", "type"]);
    expect(f).toMatchObject({ name: "Clips", type: "assets", parent_folder_id: null });
    expect(f.id).toMatch(/^[0-9a-f]{24}$/);
    expect(r.stderr).toBe("");
  });

  it("creates a child folder, lists by type, and --quiet prints ids only", async () => {
    const parent = (await run(["folder", "create", "--name", "Finals", "--type", "videos", "--json"], { home })).json<Folder>();
    const child = await run(["folder", "create", "--name", "Takes", "--type", "videos", "--parent", parent.id, "-q"], { home });
    expect(child.exitCode, child.stderr).toBe(0);
    const childId = child.stdout.trim();
    expect(childId).toMatch(/^[0-9a-f]{24}$/);

    const videos = await run(["folder", "list", "--type", "videos", "--json"], { home });
    const listed = videos.json<{ folders: Folder[] }>().folders;
    expect(listed.map((f) => f.id).sort()).toEqual([parent.id, childId].sort());
    expect(listed.find((f) => f.id === childId)?.parent_folder_id).toBe(parent.id);

    const ids = await run(["folder", "list", "-q"], { home });
    expect(ids.stdout.trim().split("\n")).toEqual(expect.arrayContaining([parent.id, childId]));
    for (const line of ids.stdout.trim().split("\n")) expect(line).toMatch(/^[0-9a-f]{24}$/);
  });

  it("human output is a table on stdout and has no colour off a TTY", async () => {
    const r = await run(["folder", "list"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+TYPE\s+PARENT\s+CREATED$/);
    expect(r.stdout).not.toContain("\u001b[");
  });

  it("--body from a file and from stdin, with flags overriding fields", async () => {
    const file = path.join(home, "body.json");
    fs.writeFileSync(file, JSON.stringify({ name: "FromFile", type: "videos" }));
    const a = await run(["folder", "create", "--body", file, "--json"], { home });
    expect(a.json<Folder>()).toMatchObject({ name: "FromFile", type: "videos" });
    const b = await run(["folder", "create", "--body", "-", "--name", "Override", "--json"], { home, input: '{"name":"FromStdin"}' });
    expect(b.json<Folder>()).toMatchObject({ name: "Override", type: "assets" });
  });

  it.each([
    ["missing --name (no TTY: usage error, never a prompt)", ["folder", "create"], undefined, "missing_field"],
    ["unreadable --body", ["folder", "create", "--body", "/nonexistent/body.json"], undefined, "usage_error"],
    ["--body that is not JSON", ["folder", "create", "--body", "-"], "{nope", "invalid_json"],
    ["--body that is an array", ["folder", "create", "--body", "-"], "[1,2]", "invalid_json"],
  ])("%s → exit 2", async (_n, args, input, code) => {
    const r = await run([...args, "--json"], { home, ...(input !== undefined ? { input } : {}) });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.errorLine()?.code).toBe(code);
  });

  it("a service validation error (400) → exit 2 with the spec's code and field", async () => {
    const r = await run(["folder", "create", "--name", "x", "--parent", "ffffffffffffffffffffffff", "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.errorLine()).toMatchObject({ status: 400, code: "invalid_value", field: "parent_folder_id" });
    // The human line names the flag that filled the field (the JSON line keeps the field).
    expect(r.stderr).toMatch(/^Error: --parent: .*\(code invalid_value\)$/m);
  });

  it("a blank name is the service's missing_field (400) → exit 2", async () => {
    const r = await run(["folder", "create", "--body", "-", "--json"], { home, input: '{"name":""}' });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.errorLine()).toMatchObject({ status: 400, field: "name" });
  });
});
