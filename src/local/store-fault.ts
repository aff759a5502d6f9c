/**
 * When the instance's storage cannot be used (the disk is full or read-only, an I/O error, or the
 * database file was deleted or replaced under a running process), requests are answered 503 with
 * the cause rather than a bare 500, and the cause is logged once where the operator looks.
 */
import fs from "node:fs";
import { errorResponse, type ErrorBody } from "../contract/errors.js";

export type StoreFaultReason = "no_space" | "read_only" | "io_error" | "database_gone";

export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  constructor(
    readonly reason: StoreFaultReason,
    /** Short and lower-case, for the 503 body: "no space left on device". */
    readonly what: string,
    /** The error underneath (SQLite's or the file system's), for the log only. */
    readonly detail: string,
  ) {
    super(`${what}${detail ? ` (${detail})` : ""}`);
  }
}

const CAUSES: Record<Exclude<StoreFaultReason, "database_gone">, string> = {
  no_space: "no space left on device",
  read_only: "the storage is read-only",
  io_error: "disk I/O error",
};

/**
 * Reads a storage fault out of a SQLite or file-system error; undefined for anything else (a bug is
 * still a 500). SQLite reports a full disk as SQLITE_FULL ("database or disk is full") and the file
 * system as ENOSPC/EDQUOT; SQLITE_READONLY_DBMOVED is SQLite noticing the file was moved.
 */
export function asStoreFault(e: unknown, dir?: string, freeBytes: (dir: string) => number | undefined = freeBytesOf): StoreUnavailableError | undefined {
  if (e instanceof StoreUnavailableError) return e;
  if (!e || typeof e !== "object") return undefined;
  const code = String((e as { code?: unknown }).code ?? "");
  const detail = `${code}${e instanceof Error ? `: ${e.message}` : ""}`;
  if (code === "SQLITE_READONLY_DBMOVED") {
    return new StoreUnavailableError("database_gone", "the database file was moved or deleted", detail);
  }
  if (code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT") return new StoreUnavailableError("no_space", CAUSES.no_space, detail);
  if (code.startsWith("SQLITE_READONLY") || code === "EROFS") return new StoreUnavailableError("read_only", CAUSES.read_only, detail);
  if (code.startsWith("SQLITE_IOERR") || code === "EIO") {
    // SQLite reports a full disk met while reading (growing the WAL index, a checkpoint) as a bare
    // I/O error: the file system says whether that is the cause.
    const free = dir !== undefined ? freeBytes(dir) : undefined;
    if (free !== undefined && free < LOW_SPACE_BYTES) {
      return new StoreUnavailableError("no_space", CAUSES.no_space, `${detail}; ${free} bytes free at ${dir}`);
    }
    return new StoreUnavailableError("io_error", CAUSES.io_error, detail);
  }
  return undefined;
}

/** Below this much free space an I/O error is taken for a full disk. */
const LOW_SPACE_BYTES = 1024 * 1024;

function freeBytesOf(dir: string): number | undefined {
  try {
    const st = fs.statfsSync(dir);
    return Number(st.bavail) * Number(st.bsize);
  } catch {
    return undefined;
  }
}

/** The 503 a request gets while the storage is unusable; names the cause, never a server path. */
export function unavailableResponse(fault: StoreUnavailableError): { status: number; body: ErrorBody } {
  const message =
    fault.reason === "database_gone"
      ? `The local instance's database was deleted or replaced while this process was using it (${fault.what}); nothing more is written to it. Restart the process (e.g. \`mediagen serve\`) to use the database now at its path.`
      : `The local instance cannot write to its storage: ${fault.what}. Requests that write are refused until it is fixed.`;
  return errorResponse("service_unavailable", message, { status: 503, error: "Service unavailable" });
}
