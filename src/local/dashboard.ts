import { fromMilli, toMilli } from "../contract/credits.js";
import { PLANS, parsePlan, type Plan } from "../contract/plans.js";
import { LocalAdminError } from "./admin-error.js";
import type { DefaultKeyFile } from "./default-key-file.js";
import { findKey, insertKey, isApiKeyFormat, maskKey, type KeyRow } from "./keys.js";
import type { Ledger } from "./ledger.js";
import type { DB, IdGen, SpaceRow } from "./types.js";

export interface SpaceView {
  id: string;
  name: string;
  plan: Plan;
  credits: number;
  is_default: boolean;
  created_at: string;
  /** Active (not revoked) keys. */
  keys: number;
}

export interface LedgerEntryView {
  id: number;
  kind: "grant" | "debit" | "refund";
  amount: number;
  balance_after: number;
  ref: string | null;
  note: string | null;
  created_at: string;
}

/** A key as listings show it: never the key itself, only its id and last four characters. */
export interface KeyView {
  id: string;
  space_id: string;
  key: string;
  created_at: string;
  revoked_at: string | null;
  replaced_by: string | null;
}

/** Key ids (`key_` + 24 hex), accepted wherever a key is, so the key itself never has to be typed. */
const KEY_ID = /^key_[0-9a-f]{24}$/;

export interface LedgerCheckView {
  space_id: string;
  balance: number;
  ledger_sum: number;
  ok: boolean;
}

export const DEFAULT_SPACE_NAME = "default";
export const DEFAULT_SPACE_CREDITS = 1000;

/** What the dashboard needs of the instance; `db` is read on every use, since a reset replaces it. */
export interface DashboardHost {
  readonly db: DB;
  readonly ids: IdGen;
  nowIso(): string;
  tx<T>(fn: () => T): T;
}

/**
 * The administration of a local instance (`mediagen local …`): spaces, their keys and credits, the
 * ledger as credits, and the default space's key. Inputs come from people, so they are checked
 * here and refused with a LocalAdminError.
 */
export class Dashboard {
  constructor(
    private readonly host: DashboardHost,
    private readonly ledger: Pick<Ledger, "grant" | "rows" | "verify">,
    private readonly keyFile: DefaultKeyFile,
    /** Keys changed: verdicts the dispatch cached for them must go. */
    private readonly forgetAuth: () => void,
  ) {}

  private get db(): DB {
    return this.host.db;
  }

  private spaceRow(id: string): SpaceRow | undefined {
    return this.db.prepare("SELECT * FROM spaces WHERE id = ?").get(id) as SpaceRow | undefined;
  }

  private view(row: SpaceRow): SpaceView {
    const { n } = this.db.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE space_id = ? AND revoked_at IS NULL").get(row.id) as { n: number };
    return {
      id: row.id,
      name: row.name,
      plan: row.plan,
      credits: fromMilli(row.balance_milli),
      is_default: row.is_default === 1,
      created_at: row.created_at,
      keys: n,
    };
  }

  private requireSpace(id: string): SpaceRow {
    const row = this.spaceRow(id);
    if (!row) throw new LocalAdminError("not_found", `No space with id ${id}`);
    return row;
  }

  private insertSpace(name: string, plan: Plan, milli: number, isDefault: boolean): SpaceRow {
    const id = this.host.ids.prefixed("sp_");
    this.db
      .prepare("INSERT INTO spaces (id, name, plan, balance_milli, is_default, created_at) VALUES (?, ?, ?, 0, ?, ?)")
      .run(id, name, plan, isDefault ? 1 : 0, this.host.nowIso());
    if (milli > 0) this.ledger.grant(id, milli, "starting credits");
    return this.spaceRow(id)!;
  }

  private newKey(spaceId: string): { id: string; key: string } {
    return insertKey(this.db, spaceId, this.host.ids.prefixed("key_"), this.host.nowIso());
  }

  private creditsToMilli(credits: unknown, allowZero: boolean): number {
    if (typeof credits !== "number" || !Number.isFinite(credits) || credits < 0 || (!allowZero && credits === 0)) {
      throw new LocalAdminError("invalid", `credits must be a ${allowZero ? "non-negative" : "positive"} number`);
    }
    try {
      return toMilli(credits);
    } catch {
      throw new LocalAdminError("invalid", "credits amount is out of range");
    }
  }

  createSpace(input: { name?: string; plan: Plan | string; credits: number }): { space: SpaceView; api_key: string } {
    const plan = PLANS.includes(input.plan as Plan) ? (input.plan as Plan) : parsePlan(String(input.plan ?? ""));
    if (!plan) throw new LocalAdminError("invalid", `plan must be one of ${PLANS.join(", ")}`);
    const milli = this.creditsToMilli(input.credits, true);
    if (input.name !== undefined && (typeof input.name !== "string" || input.name.trim() === "")) {
      throw new LocalAdminError("invalid", "a space name cannot be empty");
    }
    return this.host.tx(() => {
      const row = this.insertSpace(input.name ?? "", plan, milli, false);
      if (!input.name) this.db.prepare("UPDATE spaces SET name = ? WHERE id = ?").run(`space-${row.id.slice(-6)}`, row.id);
      const { key } = this.newKey(row.id);
      return { space: this.view(this.spaceRow(row.id)!), api_key: key };
    });
  }

  listSpaces(): SpaceView[] {
    return (this.db.prepare("SELECT * FROM spaces ORDER BY rowid").all() as SpaceRow[]).map((r) => this.view(r));
  }

  getSpace(id: string): SpaceView | undefined {
    const row = this.spaceRow(id);
    return row ? this.view(row) : undefined;
  }

  addCredits(spaceId: string, credits: number, note?: string): SpaceView {
    const milli = this.creditsToMilli(credits, false);
    return this.host.tx(() => {
      this.requireSpace(spaceId);
      this.ledger.grant(spaceId, milli, note ?? "credits added");
      return this.view(this.spaceRow(spaceId)!);
    });
  }

  ledgerEntries(spaceId: string): LedgerEntryView[] {
    this.requireSpace(spaceId);
    return this.ledger.rows(spaceId).map((r) => ({
      id: r.id,
      kind: r.kind,
      amount: fromMilli(r.amount_milli),
      balance_after: fromMilli(r.balance_after_milli),
      ref: r.ref,
      note: r.note,
      created_at: r.created_at,
    }));
  }

  verifyLedger(): LedgerCheckView[] {
    return this.ledger.verify().map((c) => ({
      space_id: c.space_id,
      balance: fromMilli(c.balance_milli),
      ledger_sum: fromMilli(c.ledger_sum_milli),
      ok: c.ok,
    }));
  }

  /** Keys of every space (or one), oldest first, revoked ones included. */
  listKeys(spaceId?: string): KeyView[] {
    if (spaceId !== undefined) this.requireSpace(spaceId);
    const rows = this.db.prepare("SELECT * FROM api_keys WHERE (@space IS NULL OR space_id = @space) ORDER BY rowid").all({ space: spaceId ?? null }) as KeyRow[];
    return rows.map((r) => ({
      id: r.id,
      space_id: r.space_id,
      key: maskKey(r.last4),
      created_at: r.created_at,
      revoked_at: r.revoked_at,
      replaced_by: r.replaced_by,
    }));
  }

  /** `keyOrId` is the key itself or its id (`key_…`, as `local keys list` shows it). */
  private activeKeyRow(keyOrId: string): KeyRow {
    let row: KeyRow | undefined;
    if (typeof keyOrId === "string" && KEY_ID.test(keyOrId)) {
      row = this.db.prepare("SELECT * FROM api_keys WHERE id = ?").get(keyOrId) as KeyRow | undefined;
      if (!row) throw new LocalAdminError("not_found", `no API key of this instance has the id ${keyOrId}`);
    } else {
      if (typeof keyOrId !== "string" || !isApiKeyFormat(keyOrId)) {
        throw new LocalAdminError("invalid", "not an API key or key id: expected mg_live_ followed by 64 lowercase hexadecimal characters, or key_ followed by 24");
      }
      row = findKey(this.db, keyOrId);
    }
    if (!row) throw new LocalAdminError("not_found", "no API key of this instance matches");
    if (row.revoked_at !== null) throw new LocalAdminError("invalid", "this API key is already revoked");
    return row;
  }

  /** Revokes the key, given as itself or by id. */
  revokeKey(keyOrId: string): void {
    this.host.tx(() => {
      const row = this.activeKeyRow(keyOrId);
      this.db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(this.host.nowIso(), row.id);
    });
    this.forgetAuth();
  }

  /** Revokes the key (given as itself or by id) at once and returns a new one for the same space. */
  regenerateKey(keyOrId: string): string {
    const key = this.host.tx(() => {
      const row = this.activeKeyRow(keyOrId);
      const fresh = this.newKey(row.space_id);
      this.db.prepare("UPDATE api_keys SET revoked_at = ?, replaced_by = ? WHERE id = ?").run(this.host.nowIso(), fresh.id, row.id);
      const stored = this.keyFile.read();
      if (stored && findKey(this.db, stored)?.id === row.id) this.keyFile.write(fresh.key);
      return fresh.key;
    });
    this.forgetAuth();
    return key;
  }

  /** The space of an active key, given as itself or by id. */
  spaceForKey(keyOrId: string): SpaceView | undefined {
    const row =
      typeof keyOrId !== "string"
        ? undefined
        : KEY_ID.test(keyOrId)
          ? (this.db.prepare("SELECT * FROM api_keys WHERE id = ?").get(keyOrId) as KeyRow | undefined)
          : findKey(this.db, keyOrId);
    if (!row || row.revoked_at !== null) return undefined;
    const space = this.spaceRow(row.space_id);
    return space ? this.view(space) : undefined;
  }

  private isDefaultSpaceKey(key: string | undefined): key is string {
    if (!key) return false;
    const row = findKey(this.db, key);
    if (!row || row.revoked_at !== null) return false;
    return this.spaceRow(row.space_id)?.is_default === 1;
  }

  /**
   * The key of the default space ("default", PRO, 1000 credits), created on first use. The key file
   * is written inside the transaction that creates the key, so a process that sees the default space
   * also finds its key on disk; two processes racing here end with the same key.
   */
  defaultKey(): string {
    const seen = this.keyFile.read();
    if (this.isDefaultSpaceKey(seen)) return seen;
    return this.host.tx(() => {
      const again = this.keyFile.read();
      if (this.isDefaultSpaceKey(again)) return again;
      const space =
        (this.db.prepare("SELECT * FROM spaces WHERE is_default = 1").get() as SpaceRow | undefined) ??
        this.insertSpace(DEFAULT_SPACE_NAME, "PRO", toMilli(DEFAULT_SPACE_CREDITS), true);
      const { key } = this.newKey(space.id);
      this.keyFile.write(key);
      return key;
    });
  }
}
