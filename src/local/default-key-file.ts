import fs from "node:fs";
import { isApiKeyFormat } from "./keys.js";

/**
 * The default space's key on disk (`<home>/local/default.key`, 0600 in a 0700 dir): the local
 * target's key when the profile stores none, the same for every process of the instance.
 */
export class DefaultKeyFile {
  constructor(
    private readonly localDir: string,
    private readonly file: string,
  ) {}

  /** The key written there, or undefined when there is none (or not a key). */
  read(): string | undefined {
    try {
      const key = fs.readFileSync(this.file, "utf8").trim();
      return isApiKeyFormat(key) ? key : undefined;
    } catch {
      return undefined;
    }
  }

  /** Replaces the file whole (temp file, then rename), so a reader never sees half a key. */
  write(key: string): void {
    fs.mkdirSync(this.localDir, { recursive: true, mode: 0o700 });
    fs.chmodSync(this.localDir, 0o700);
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, key + "\n", { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}
