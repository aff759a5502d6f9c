import type { Clock, DB, LedgerApi } from "./types.js";

/** What the ledger needs from the instance; read on every call so a reset instance is followed. */
export interface LedgerHost {
  readonly db: DB;
  readonly clock: Clock;
}

export interface LedgerRow {
  id: number;
  space_id: string;
  amount_milli: number;
  balance_after_milli: number;
  kind: "grant" | "debit" | "refund";
  ref: string | null;
  note: string | null;
  created_at: string;
}

export interface LedgerCheck {
  space_id: string;
  balance_milli: number;
  ledger_sum_milli: number;
  ok: boolean;
}

function checkAmount(milli: number): void {
  if (!Number.isSafeInteger(milli) || milli < 0) {
    throw new RangeError(`credit amounts are non-negative whole millicredits, got ${milli}`);
  }
}

/**
 * The append-only credit ledger. Every movement writes one row and moves `spaces.balance_milli` in
 * the same statement group, so the balance always equals the sum of the rows; a debit is a
 * conditional UPDATE, so the balance cannot go below zero whatever runs concurrently.
 */
export class Ledger implements LedgerApi {
  constructor(private readonly host: LedgerHost) {}

  private get db(): DB {
    return this.host.db;
  }

  private append(spaceId: string, amount: number, kind: LedgerRow["kind"], ref: string | null, note?: string): void {
    const { balance_milli } = this.db.prepare("SELECT balance_milli FROM spaces WHERE id = ?").get(spaceId) as {
      balance_milli: number;
    };
    this.db
      .prepare("INSERT INTO ledger (space_id, amount_milli, balance_after_milli, kind, ref, note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(spaceId, amount, balance_milli, kind, ref, note ?? null, new Date(this.host.clock.now()).toISOString());
  }

  private inTx<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.db.transaction(fn).immediate();
  }

  debit(spaceId: string, milli: number, ref: string, note?: string): boolean {
    checkAmount(milli);
    return this.inTx(() => {
      const r = this.db.prepare("UPDATE spaces SET balance_milli = balance_milli - ? WHERE id = ? AND balance_milli >= ?").run(milli, spaceId, milli);
      if (r.changes === 0) return false;
      this.append(spaceId, milli === 0 ? 0 : -milli, "debit", ref, note);
      return true;
    });
  }

  refund(spaceId: string, milli: number, ref: string, note?: string): boolean {
    checkAmount(milli);
    if (!ref) throw new RangeError("a refund needs the ref of the debit it returns");
    return this.inTx(() => {
      if (this.db.prepare("SELECT 1 FROM ledger WHERE kind = 'refund' AND ref = ?").get(ref)) return false;
      const r = this.db.prepare("UPDATE spaces SET balance_milli = balance_milli + ? WHERE id = ?").run(milli, spaceId);
      if (r.changes === 0) throw new Error(`unknown space ${spaceId}`);
      this.append(spaceId, milli, "refund", ref, note);
      return true;
    });
  }

  grant(spaceId: string, milli: number, note?: string): void {
    checkAmount(milli);
    this.inTx(() => {
      const r = this.db.prepare("UPDATE spaces SET balance_milli = balance_milli + ? WHERE id = ?").run(milli, spaceId);
      if (r.changes === 0) throw new Error(`unknown space ${spaceId}`);
      this.append(spaceId, milli, "grant", null, note);
    });
  }

  balance(spaceId: string): number {
    const row = this.db.prepare("SELECT balance_milli FROM spaces WHERE id = ?").get(spaceId) as { balance_milli: number } | undefined;
    return row?.balance_milli ?? 0;
  }

  rows(spaceId: string): LedgerRow[] {
    return this.db.prepare("SELECT * FROM ledger WHERE space_id = ? ORDER BY id").all(spaceId) as LedgerRow[];
  }

  /** Proves, per space, that the maintained balance equals the sum of the ledger. */
  verify(): LedgerCheck[] {
    const rows = this.db
      .prepare(
        `SELECT s.id AS space_id, s.balance_milli AS balance_milli,
                COALESCE((SELECT SUM(amount_milli) FROM ledger l WHERE l.space_id = s.id), 0) AS ledger_sum_milli
           FROM spaces s ORDER BY s.rowid`,
      )
      .all() as Omit<LedgerCheck, "ok">[];
    return rows.map((r) => ({ ...r, ok: r.balance_milli === r.ledger_sum_milli && r.balance_milli >= 0 }));
  }
}
