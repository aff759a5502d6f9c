/**
 * `mediagen local snapshot restore` of a snapshot that cannot be used — a newer schema, a damaged
 * file, a file that is no database, a missing table — is refused with the versions in the message,
 * and the live instance is left exactly as it was (it answers, and a good snapshot still restores).
 * An older snapshot is migrated on restore.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { localParts } from "../../src/features/local.js";
import { openDatabase } from "../../src/local/db/open.js";
import { newHome, run } from "./helpers.js";

const KNOWN = localParts.migrations.length;

describe("restoring a snapshot that cannot be used", () => {
  let home: string;
  let snapshots: string;
  let spaces: string;

  const listSpaces = async () => {
    const r = await run(["local", "spaces", "list", "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout;
  };

  /** A copy of the good snapshot "good" as `name`, its database changed by `spoil`. */
  const spoiled = (name: string, spoil: (dbFile: string) => void) => {
    const dir = path.join(snapshots, name);
    fs.cpSync(path.join(snapshots, "good"), dir, { recursive: true });
    const meta = JSON.parse(fs.readFileSync(path.join(dir, "snapshot.json"), "utf8")) as { name: string };
    fs.writeFileSync(path.join(dir, "snapshot.json"), JSON.stringify({ ...meta, name }));
    spoil(path.join(dir, "instance.db"));
  };

  beforeAll(async () => {
    home = newHome();
    snapshots = path.join(home, "local", "snapshots");
    await run(["local", "keys", "create", "--plan", "PRO", "--credits", "50"], { home });
    expect((await run(["local", "snapshot", "save", "good"], { home })).exitCode).toBe(0);
    await run(["local", "keys", "create", "--plan", "start", "--credits", "3"], { home });
    spaces = await listSpaces();

    spoiled("newer", (f) => {
      // PRAGMA user_version lives at byte 60 of the header: what a newer mediagen writes.
      const fd = fs.openSync(f, "r+");
      const b = Buffer.alloc(4);
      b.writeInt32BE(KNOWN + 1);
      fs.writeSync(fd, b, 0, 4, 60);
      fs.closeSync(fd);
    });
    spoiled("garbage", (f) => fs.writeFileSync(f, "this is not a database at all, only some text"));
    spoiled("damaged", (f) => {
      const bytes = fs.readFileSync(f);
      // Every page after the first scribbled over: the header is intact, the b-trees are not.
      for (let i = 4096; i < bytes.length; i += 7) bytes[i] = (bytes[i]! + 0x5a) & 0xff;
      fs.writeFileSync(f, bytes);
    });
    spoiled("no-ledger", (f) => {
      const db = openDatabase(f, localParts.migrations);
      db.exec("DROP TABLE webhook_attempts");
      db.close();
    });
  });

  it.each([
    ["newer", new RegExp(`schema version is ${KNOWN + 1}, newer than this mediagen knows \\(${KNOWN}\\)`)],
    ["garbage", /not a SQLite database/],
    ["damaged", /damaged|cannot be opened/],
    ["no-ledger", /lacks the table webhook_attempts/],
  ])("%s: refused (exit 2, the reason given), the instance untouched", async (name, why) => {
    const r = await run(["local", "snapshot", "restore", name, "--json"], { home });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.errorLine()?.message).toMatch(why);
    expect(r.errorLine()?.message).toMatch(/instance was left as it was/);
    expect(await listSpaces()).toBe(spaces);
    expect((await run(["local", "ledger", "verify"], { home })).exitCode).toBe(0);
    expect(fs.readdirSync(path.join(home, "local")).filter((n) => n.startsWith(".restore"))).toEqual([]);
  });

  it("a good snapshot still restores after the refusals", async () => {
    const r = await run(["local", "snapshot", "restore", "good"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await listSpaces()).not.toBe(spaces);
  });

  it("an older snapshot (fewer migrations) is migrated on restore", async () => {
    const dir = path.join(snapshots, "older");
    fs.mkdirSync(dir);
    const db = openDatabase(path.join(dir, "instance.db"), localParts.migrations.slice(0, KNOWN - 1));
    db.close();
    fs.writeFileSync(
      path.join(dir, "snapshot.json"),
      JSON.stringify({ name: "older", created_at: new Date().toISOString(), size_bytes: 0, media_files: 0, schema_version: KNOWN - 1, spaces: 0 }),
    );
    const r = await run(["local", "snapshot", "restore", "older"], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await run(["local", "spaces", "list", "--json"], { home })).json()).toEqual([]);
    const created = await run(["local", "keys", "create", "--plan", "PRO", "--credits", "5", "--json"], { home });
    expect(created.exitCode, created.stderr).toBe(0);
  });
});
