/**
 * The better-sqlite3 driver (db/driver.ts), for Node 20, which has no node:sqlite: a native addon
 * that `npm install` compiles (an optional dependency: where it was not built, Node 22.16+ and 24+
 * use node:sqlite and need nothing compiled). Its Database is the interface itself; only `backup`
 * is narrowed to the one way snapshots use it.
 */
import { createRequire } from "node:module";
import Database from "better-sqlite3";
import { SqliteError, type SqlDatabase, type SqlDriver } from "./driver.js";

let addon: string | null | undefined;
/**
 * Where better-sqlite3's compiled addon is, so it is loaded directly: without it better-sqlite3 asks
 * the `bindings` package, which tries a dozen paths first (start-up time of every local command).
 * Undefined (better-sqlite3 then searches as usual) when the package keeps it elsewhere.
 */
function addonPath(): string | undefined {
  if (addon === undefined) {
    try {
      addon = createRequire(import.meta.url).resolve("better-sqlite3/build/Release/better_sqlite3.node");
    } catch {
      addon = null;
    }
  }
  return addon ?? undefined;
}

/** The addon was never built (install scripts blocked, no compiler) or was built for another Node. */
function addonProblem(e: unknown): SqliteError | undefined {
  const msg = e instanceof Error ? e.message : String(e);
  if (!/bindings file|better_sqlite3\.node|NODE_MODULE_VERSION|Cannot find module/i.test(msg)) return undefined;
  return new SqliteError(
    `better-sqlite3's native addon is not built for Node ${process.version} (${msg.split("\n")[0]}); Node 24 (or 22.16+) needs nothing compiled (node:sqlite); on Node 20, install with a C++ compiler present (\`npm rebuild better-sqlite3\`)`,
    "ERR_SQLITE_DRIVER",
  );
}

export const betterDriver: SqlDriver = {
  name: "better",
  connect(file: string): SqlDatabase {
    let db: Database.Database;
    try {
      const nativeBinding = addonPath();
      db = new Database(file, nativeBinding ? { nativeBinding } : {});
    } catch (e) {
      throw addonProblem(e) ?? e;
    }
    const backup = db.backup.bind(db);
    // Every page in one step: one read transaction, so the copy is one point in time.
    // The interface is better-sqlite3's own API (its transaction types spell the arguments another way).
    return Object.assign(db, { backup: (dest: string) => backup(dest, { progress: () => 0x7fffffff }) }) as unknown as SqlDatabase;
  },
};
