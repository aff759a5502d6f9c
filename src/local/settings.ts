import type { DB } from "./types.js";

interface Host {
  readonly db: DB;
  tx<T>(fn: () => T): T;
}

/** The instance's own settings (e.g. `webhook_secret`): text by key, in the `settings` table. */
export class Settings {
  constructor(private readonly host: Host) {}

  get(key: string): string | undefined {
    const row = this.host.db.prepare("SELECT value FROM settings WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  /** `null` or `undefined` removes the setting. */
  set(key: string, value: string | null | undefined): void {
    this.host.tx(() => {
      if (value === null || value === undefined) this.host.db.prepare("DELETE FROM settings WHERE key = ?").run(key);
      else this.host.db.prepare("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
    });
  }

  /** Stores `value` only if `key` has no value yet, and returns what is stored (first writer wins). */
  ensure(key: string, value: string): string {
    return this.host.tx(() => {
      this.host.db.prepare("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING").run(key, value);
      return (this.host.db.prepare("SELECT value FROM settings WHERE key = ?").get(key) as { value: string }).value;
    });
  }
}
