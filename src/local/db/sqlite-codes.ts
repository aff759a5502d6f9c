/**
 * SQLite's result codes by name, as better-sqlite3 gives them in an error's `code`: node:sqlite
 * gives the number (`errcode`, extended codes on) and `ERR_SQLITE_ERROR` as its code, so its errors
 * are renamed with this table and the store reads one kind of error from either driver.
 * An extended code is the primary code plus (n << 8): the n-th name of the primary code's list.
 */
const PRIMARY: Record<number, [string, readonly string[]]> = {
  0: ["OK", ["LOAD_PERMANENTLY"]],
  1: ["ERROR", ["MISSING_COLLSEQ", "RETRY", "SNAPSHOT"]],
  2: ["INTERNAL", []],
  3: ["PERM", []],
  4: ["ABORT", ["ROLLBACK"]],
  5: ["BUSY", ["RECOVERY", "SNAPSHOT", "TIMEOUT"]],
  6: ["LOCKED", ["SHAREDCACHE", "VTAB"]],
  7: ["NOMEM", []],
  8: ["READONLY", ["RECOVERY", "CANTLOCK", "ROLLBACK", "DBMOVED", "CANTINIT", "DIRECTORY"]],
  9: ["INTERRUPT", []],
  10: [
    "IOERR",
    [
      "READ",
      "SHORT_READ",
      "WRITE",
      "FSYNC",
      "DIR_FSYNC",
      "TRUNCATE",
      "FSTAT",
      "UNLOCK",
      "RDLOCK",
      "DELETE",
      "BLOCKED",
      "NOMEM",
      "ACCESS",
      "CHECKRESERVEDLOCK",
      "LOCK",
      "CLOSE",
      "DIR_CLOSE",
      "SHMOPEN",
      "SHMSIZE",
      "SHMLOCK",
      "SHMMAP",
      "SEEK",
      "DELETE_NOENT",
      "MMAP",
      "GETTEMPPATH",
      "CONVPATH",
      "VNODE",
      "AUTH",
      "BEGIN_ATOMIC",
      "COMMIT_ATOMIC",
      "ROLLBACK_ATOMIC",
      "DATA",
      "CORRUPTFS",
      "IN_PAGE",
    ],
  ],
  11: ["CORRUPT", ["VTAB", "SEQUENCE", "INDEX"]],
  12: ["NOTFOUND", []],
  13: ["FULL", []],
  14: ["CANTOPEN", ["NOTEMPDIR", "ISDIR", "FULLPATH", "CONVPATH", "DIRTYWAL", "SYMLINK"]],
  15: ["PROTOCOL", []],
  16: ["EMPTY", []],
  17: ["SCHEMA", []],
  18: ["TOOBIG", []],
  19: ["CONSTRAINT", ["CHECK", "COMMITHOOK", "FOREIGNKEY", "FUNCTION", "NOTNULL", "PRIMARYKEY", "TRIGGER", "UNIQUE", "VTAB", "ROWID", "PINNED", "DATATYPE"]],
  20: ["MISMATCH", []],
  21: ["MISUSE", []],
  22: ["NOLFS", []],
  23: ["AUTH", ["USER"]],
  24: ["FORMAT", []],
  25: ["RANGE", []],
  26: ["NOTADB", []],
  27: ["NOTICE", ["RECOVER_WAL", "RECOVER_ROLLBACK"]],
  28: ["WARNING", ["AUTOINDEX"]],
};

/** `SQLITE_BUSY` for 5, `SQLITE_IOERR_SHMSIZE` for 4874; an unknown extended code gets its primary's name. */
export function sqliteCodeName(code: number): string {
  const primary = PRIMARY[code & 0xff];
  if (!primary) return `SQLITE_UNKNOWN_${code}`;
  const [name, extended] = primary;
  const n = code >> 8;
  const ext = n > 0 ? extended[n - 1] : undefined;
  return ext ? `SQLITE_${name}_${ext}` : `SQLITE_${name}`;
}
