/**
 * On a full disk SQLite may report a read's failure as a bare "disk I/O error" (the WAL index or a
 * checkpoint could not grow): the file system is asked, and the fault names the cause — no space left
 * on device — with the I/O error and the free bytes kept in the detail for the log.
 */
import { SqliteError } from "../../src/local/db/driver.js";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { asStoreFault, unavailableResponse } from "../../src/local/store-fault.js";

const ioError = () => new SqliteError("disk I/O error", "SQLITE_IOERR_SHMSIZE");

describe("an I/O error on a full disk", () => {
  it("is reported as no space left on device, the I/O error in the detail", () => {
    const fault = asStoreFault(ioError(), "/data/home/local", () => 0)!;
    expect(fault.reason).toBe("no_space");
    expect(fault.what).toBe("no space left on device");
    expect(fault.detail).toMatch(/SQLITE_IOERR_SHMSIZE: disk I\/O error; 0 bytes free at \/data\/home\/local/);
    const body = unavailableResponse(fault).body as { details: { message: string }[] };
    expect(body.details[0]!.message).toContain("no space left on device");
  });

  it("stays an I/O error when there is room (a failing disk, not a full one)", () => {
    expect(asStoreFault(ioError(), os.tmpdir(), () => 50 * 1024 ** 3)!.reason).toBe("io_error");
    expect(asStoreFault(ioError())!.reason).toBe("io_error");
  });
});
