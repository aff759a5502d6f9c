#!/usr/bin/env node
/**
 * Builds better-sqlite3's native addon where this Node needs it: Node 20 (no node:sqlite; see
 * src/local/db/driver.ts) or MEDIAGEN_SQLITE_DRIVER=better, when it is not built already. Run by
 * `prepare` (`npm install` in a clone, with any npm). package.json's allowScripts keeps npm from
 * running better-sqlite3's own install script, which Node 22.16+ and 24 do not need (node:sqlite)
 * and which npm 12 would otherwise block with a warning or, allowed, compile for nothing; this runs
 * that same script (`prebuild-install || node-gyp rebuild --release`) only where it is needed.
 * A failed build is reported, not fatal: the hosted target needs no SQLite, and the local instance
 * then says what is missing.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** The same test as src/local/db/node-sqlite.ts: node:sqlite with the backup and isTransaction. */
function nodeSqliteComplete() {
  const mod = process.getBuiltinModule?.("node:sqlite");
  if (!mod || typeof mod.backup !== "function") return false;
  try {
    const probe = new mod.DatabaseSync(":memory:");
    const has = typeof probe.isTransaction === "boolean";
    probe.close();
    return has;
  } catch {
    return false;
  }
}

function addonLoads() {
  try {
    const Database = require("better-sqlite3");
    new Database(":memory:").close();
    return true;
  } catch {
    return false;
  }
}

const forced = (process.env.MEDIAGEN_SQLITE_DRIVER ?? "").trim().toLowerCase();
if (forced !== "better" && (forced === "node" || nodeSqliteComplete())) process.exit(0);
let dir;
try {
  dir = path.dirname(require.resolve("better-sqlite3/package.json"));
} catch {
  console.warn(`mediagen: better-sqlite3 is not installed; Node ${process.version} needs it for the local instance (Node 22.16+ and 24 do not)`);
  process.exit(0);
}
if (addonLoads()) process.exit(0);
const script = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).scripts?.install ?? "node-gyp rebuild --release";
console.warn(`mediagen: Node ${process.version} has no node:sqlite: building better-sqlite3's addon (${script})`);
const bin = path.join(dir, "node_modules", ".bin");
const up = path.join(dir, "..", ".bin");
const run = spawnSync(script, {
  cwd: dir,
  shell: true,
  stdio: "inherit",
  env: { ...process.env, PATH: [bin, up, process.env.PATH].join(path.delimiter) },
});
if (run.status !== 0 || !addonLoads()) {
  console.warn(
    "mediagen: better-sqlite3's addon could not be built (a C++ compiler, make and python3 are needed on Node 20); the local instance cannot open its database until it is (`npm rebuild better-sqlite3`), or use Node 24 / 22.16+, which need nothing compiled",
  );
}
