import crypto from "node:crypto";
import { errorResponse, type ErrorBody } from "../contract/errors.js";
import type { DB, SpaceRow } from "./types.js";

export const KEY_PREFIX = "mg_live_";
const KEY_FORMAT = /^mg_live_[0-9a-f]{64}$/;

export function generateApiKey(): string {
  return KEY_PREFIX + crypto.randomBytes(32).toString("hex");
}

/** Only this digest is stored: a copy of the database never reveals a usable key. */
export function hashApiKey(key: string): string {
  return crypto.createHash("sha256").update(key, "utf8").digest("hex");
}

export function isApiKeyFormat(key: string): boolean {
  return KEY_FORMAT.test(key);
}

/** `mg_live_…abcd`, for listings that must never show a key. */
export function maskKey(last4: string): string {
  return `${KEY_PREFIX}…${last4}`;
}

export interface KeyRow {
  id: string;
  space_id: string;
  key_hash: string;
  last4: string;
  created_at: string;
  revoked_at: string | null;
  replaced_by: string | null;
}

/** Inserts a new key for a space and returns it; call inside a transaction. */
export function insertKey(db: DB, spaceId: string, id: string, createdAt: string): { id: string; key: string } {
  const key = generateApiKey();
  db.prepare("INSERT INTO api_keys (id, space_id, key_hash, last4, created_at) VALUES (?, ?, ?, ?, ?)").run(id, spaceId, hashApiKey(key), key.slice(-4), createdAt);
  return { id, key };
}

/** The key's row whatever its state; undefined for a malformed or unknown key. */
export function findKey(db: DB, key: string): KeyRow | undefined {
  if (!isApiKeyFormat(key)) return undefined;
  return db.prepare("SELECT * FROM api_keys WHERE key_hash = ?").get(hashApiKey(key)) as KeyRow | undefined;
}

export type AuthResult = { ok: true; space: SpaceRow; keyId: string } | { ok: false; status: number; body: ErrorBody };

function unauthorized(error: string, message: string): AuthResult {
  const { status, body } = errorResponse("invalid_api_key", message, { error });
  return { ok: false, status, body };
}

/**
 * Resolves a raw Authorization header to its space. The three 401s differ only in their messages,
 * as on the hosted service; the format is checked before any lookup.
 */
export function authenticate(db: DB, authorization: string | undefined): AuthResult {
  const header = authorization?.trim();
  if (!header) {
    return unauthorized("Missing API key", "The Authorization header is missing; send Authorization: Bearer <API_KEY>");
  }
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m || !isApiKeyFormat(m[1]!)) {
    return unauthorized(
      "Invalid API key format",
      "The API key format is invalid; expected Authorization: Bearer <API_KEY>, where the key is mg_live_ followed by 64 hexadecimal characters",
    );
  }
  const row = findKey(db, m[1]!);
  if (!row) return unauthorized("Invalid API key", "The API key is not valid");
  if (row.revoked_at !== null) return unauthorized("Invalid API key", "The API key has been revoked");
  const space = db.prepare("SELECT * FROM spaces WHERE id = ?").get(row.space_id) as SpaceRow | undefined;
  if (!space) return unauthorized("Invalid API key", "The API key is not valid");
  return { ok: true, space, keyId: row.id };
}
