import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { migrate, openDatabase, schemaVersion } from "../../src/local/db/open.js";
import { localParts } from "../../src/features/local.js";
const { migrations } = localParts;
import { openTestInstance, tempHome, type TestInstance } from "../helpers/local.js";

const open: TestInstance[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

describe("openDatabase", () => {
  test("WAL, a busy timeout of seconds, foreign keys, synchronous NORMAL, schema at the latest version", () => {
    const file = path.join(tempHome(), "x", "db.sqlite");
    const db = openDatabase(file, migrations);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("busy_timeout", { simple: true })).toBe(10_000);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    expect(schemaVersion(db)).toBe(migrations.length);
    db.close();
    const again = openDatabase(file, migrations);
    expect(schemaVersion(again)).toBe(migrations.length);
    again.close();
  });

  test("every core table is STRICT", () => {
    const db = openDatabase(path.join(tempHome(), "db.sqlite"), migrations);
    const tables = db.prepare("SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%'").all() as {
      name: string;
      strict: number;
    }[];
    const core = ["settings", "spaces", "api_keys", "ledger", "rate_windows", "jobs", "workers", "webhook_deliveries", "webhook_attempts", "folders"];
    for (const name of core) expect(tables.find((t) => t.name === name)).toEqual({ name, strict: 1 });
    expect(() => db.prepare("INSERT INTO rate_windows (space_id, window_start, count) VALUES ('s', 'soon', 1)").run()).toThrow(
      /cannot store TEXT value in INTEGER column/,
    );
    db.close();
  });

  test("migrations apply in order, once, and a newer schema is refused", () => {
    const db = openDatabase(":memory:", migrations);
    const list = [...migrations, "CREATE TABLE extra (x INTEGER) STRICT;"];
    migrate(db, list);
    migrate(db, list);
    expect(schemaVersion(db)).toBe(list.length);
    expect(() => migrate(db, migrations)).toThrow(/newer than this mediagen knows/);
    db.close();
  });

  test("a failing migration leaves the schema version unchanged", () => {
    const db = openDatabase(":memory:", migrations);
    const before = schemaVersion(db);
    expect(() => migrate(db, [...migrations, "CREATE TABLE ok1 (x INTEGER) STRICT;", "THIS IS NOT SQL"])).toThrow();
    expect(schemaVersion(db)).toBe(before);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'ok1'").get()).toBeUndefined();
    db.close();
  });
});

describe("instance files", () => {
  test("the db and media live under <home>/local; reset starts from nothing", async () => {
    const t = openTestInstance({ worker: "none" });
    open.push(t);
    expect(t.dbPath).toBe(path.join(t.home, "local", "instance.db"));
    expect(t.mediaDir).toBe(path.join(t.home, "local", "media"));
    expect(fs.existsSync(t.dbPath)).toBe(true);
    fs.writeFileSync(path.join(t.mediaDir, "file.png"), "x");
    const oldKey = t.key;
    await t.api.folderCreate({ name: "gone soon" });
    await t.reset();
    expect(fs.readdirSync(t.mediaDir)).toEqual([]);
    expect(t.listSpaces()).toEqual([]);
    expect(t.spaceForKey(oldKey)).toBeUndefined();
    const key = t.defaultKey();
    expect(key).not.toBe(oldKey);
    expect((await t.engine(key).folderList()).folders).toEqual([]);
  });

  test("fileUrls gives file:// URLs of absolute media paths", () => {
    const t = openTestInstance({ worker: "none" });
    open.push(t);
    expect(t.fileUrls().media("assets/a b.png")).toBe(`file://${t.mediaDir}/assets/a%20b.png`);
  });
});
