/**
 * Both SQLite drivers behind src/local/db/driver.ts behave as the store needs: the pragmas every
 * connection gets, transactions (IMMEDIATE, deferred, nested as savepoints, undone on a throw or a
 * returned promise), named parameters as better-sqlite3 binds them, pluck on shared cached
 * statements, errors named by SQLite's code, the one-step online backup, and two connections (or two
 * drivers) on one file. A driver this Node cannot load is skipped, its reason in the suite's name:
 * node:sqlite on Node 20; better-sqlite3 where its addon was not built (npm 12 runs no install script).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { localParts } from "../../src/features/local.js";
import type { SqlDatabase, SqlDriver } from "../../src/local/db/driver.js";
import { nodeDriver, nodeSqliteMissing } from "../../src/local/db/node-sqlite.js";
import { defaultDriver, LocalStoreError, openDatabase, schemaVersion } from "../../src/local/db/open.js";
import { tempHome } from "../helpers/local.js";

const { migrations } = localParts;

async function better(): Promise<{ driver?: SqlDriver; missing?: string }> {
  try {
    const { betterDriver } = await import("../../src/local/db/better-sqlite3.js");
    betterDriver.connect(":memory:").close();
    return { driver: betterDriver };
  } catch (e) {
    return { missing: (e instanceof Error ? e.message : String(e)).split("\n")[0] };
  }
}

const b = await better();
const drivers: [string, SqlDriver, string | undefined][] = [
  ["node:sqlite", nodeDriver, nodeSqliteMissing()],
  ["better-sqlite3", b.driver ?? nodeDriver, b.missing],
];
for (const [name, , missing] of drivers) if (missing) console.log(`sqlite-drivers: ${name} skipped: ${missing}`);

const file = () => path.join(tempHome(), "local", "t.db");

function table(db: SqlDatabase): SqlDatabase {
  db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, n INTEGER NOT NULL DEFAULT 0) STRICT");
  return db;
}

describe.each(drivers)("on %s", (_name, driver, missing) => {
  const it = test.skipIf(missing !== undefined);

  it(`opens with WAL, a busy timeout, foreign keys and synchronous NORMAL, at the latest schema${missing ? ` (skipped: ${missing})` : ""}`, () => {
    const f = file();
    const db = openDatabase(f, migrations, driver);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("busy_timeout", { simple: true })).toBe(10_000);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    expect(schemaVersion(db)).toBe(migrations.length);
    expect(db.open).toBe(true);
    db.close();
    expect(db.open).toBe(false);
    expect((fs.statSync(f).mode & 0o777).toString(8)).toBe("600");
  });

  it("commits a transaction, undoes one that throws or returns a promise, and nests as savepoints", () => {
    const db = table(openDatabase(":memory:", [], driver));
    const insert = (n: string) => db.prepare("INSERT INTO t (name) VALUES (?)").run(n);
    expect(db.transaction(() => insert("a").changes).immediate()).toBe(1);
    expect(() =>
      db.transaction(() => {
        insert("b");
        throw new Error("no");
      })(),
    ).toThrow("no");
    expect(() => db.transaction(() => Promise.resolve(insert("c"))).immediate()).toThrow(/promise/);
    const outer = db.transaction(() => {
      expect(db.inTransaction).toBe(true);
      insert("d");
      expect(() =>
        db.transaction(() => {
          insert("e");
          throw new Error("inner");
        })(),
      ).toThrow("inner");
      db.transaction(() => insert("f"))();
      return db.inTransaction;
    });
    expect(outer.immediate()).toBe(true);
    expect(db.inTransaction).toBe(false);
    expect(db.prepare("SELECT name FROM t ORDER BY id").pluck().all()).toEqual(["a", "d", "f"]);
    db.close();
  });

  it("binds @names from object keys (extra keys ignored), and plucks only where asked on a cached statement", () => {
    const db = table(openDatabase(":memory:", [], driver));
    db.prepare("INSERT INTO t (name, n) VALUES (@name, @n)").run({ name: "x", n: 7, unused: "ignored" });
    const sql = "SELECT name, n FROM t WHERE n = ?";
    expect(db.prepare(sql).pluck().get(7)).toBe("x");
    expect({ ...(db.prepare(sql).get(7) as object) }).toEqual({ name: "x", n: 7 });
    expect(db.prepare(sql).all(8)).toEqual([]);
    expect([...db.prepare("SELECT n FROM t").pluck().iterate()]).toEqual([7]);
    expect(db.prepare(sql).reader).toBe(true);
    expect(db.prepare("DELETE FROM t WHERE n = ?").reader).toBe(false);
    expect(db.prepare("DELETE FROM t WHERE n = ?").run(7)).toMatchObject({ changes: 1 });
    db.close();
  });

  it("names errors by SQLite's code: a constraint, a lock held by another connection, a file that is not a database", () => {
    const f = file();
    const db = table(openDatabase(f, [], driver));
    db.prepare("INSERT INTO t (name) VALUES ('a')").run();
    expect(() => db.prepare("INSERT INTO t (name) VALUES ('a')").run()).toThrow(expect.objectContaining({ code: "SQLITE_CONSTRAINT_UNIQUE" }));
    const other = openDatabase(f, [], driver);
    other.pragma("busy_timeout = 0");
    db.transaction(() => {
      expect(() => other.transaction(() => other.prepare("INSERT INTO t (name) VALUES ('b')").run()).immediate()).toThrow(
        expect.objectContaining({ code: "SQLITE_BUSY" }),
      );
      expect(other.inTransaction).toBe(false);
    }).immediate();
    other.close();
    db.close();
    const junk = path.join(tempHome(), "junk.db");
    fs.writeFileSync(junk, "this is not a database, just text long enough to be read as a header.".repeat(20));
    expect(() => openDatabase(junk, migrations, driver)).toThrow(LocalStoreError);
    expect(() => openDatabase(junk, migrations, driver)).toThrow(/is damaged/);
  });

  it("backs up the whole database in one step while another connection writes", async () => {
    const f = file();
    const db = table(openDatabase(f, [], driver));
    const writer = openDatabase(f, [], driver);
    for (let i = 0; i < 500; i++) db.prepare("INSERT INTO t (name, n) VALUES (?, ?)").run(`row ${i}`, i);
    const copy = path.join(path.dirname(f), "copy.db");
    const done = db.backup(copy);
    writer.prepare("INSERT INTO t (name) VALUES ('late')").run();
    await done;
    const read = openDatabase(copy, [], driver);
    const n = read.prepare("SELECT COUNT(*) FROM t").pluck().get() as number;
    // One point in time: before or after the late write, never half of it.
    expect([500, 501]).toContain(n);
    expect(read.prepare("SELECT SUM(n) FROM t").pluck().get()).toBe((499 * 500) / 2);
    for (const c of [read, writer, db]) c.close();
  });
});

describe("the two drivers on one file", () => {
  const both = drivers.every(([, , missing]) => !missing);
  test.skipIf(!both)(`each sees the other's commits (${both ? "both available" : "skipped: one driver is missing here"})`, () => {
    const f = file();
    const a = table(openDatabase(f, migrations, nodeDriver));
    const c = openDatabase(f, migrations, b.driver!);
    a.transaction(() => a.prepare("INSERT INTO t (name) VALUES ('from node')").run()).immediate();
    expect(c.prepare("SELECT name FROM t").pluck().all()).toEqual(["from node"]);
    c.transaction(() => c.prepare("INSERT INTO t (name) VALUES ('from better')").run()).immediate();
    expect(a.prepare("SELECT COUNT(*) FROM t").pluck().get()).toBe(2);
    a.close();
    c.close();
  });

  test("this process opens with node:sqlite where Node has it, better-sqlite3 otherwise", () => {
    expect(defaultDriver.name).toBe(process.env.MEDIAGEN_SQLITE_DRIVER ?? (nodeSqliteMissing() ? "better" : "node"));
  });
});
