import fs from "node:fs";
import path from "node:path";
import { readEnv } from "./env.js";
import { credentialsFile, type Env } from "./paths.js";
import { ConfigError, type TargetName } from "./profiles.js";

/**
 * The spec's key format: "a fixed live prefix followed by 64 hexadecimal characters". Which prefix
 * is not said (the local instance's is `mg_live_`), so any `<prefix>_live_` is taken.
 */
export const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*_live_[0-9a-f]{64}$/i;

export function isValidKeyFormat(key: string): boolean {
  return KEY_RE.test(key);
}

export interface StoredKey {
  api_key: string;
  /** The target the key was stored for: a key is only sent to the kind of target it belongs to. */
  target: TargetName;
  stored_at: string;
}

interface CredentialsData {
  profiles: Record<string, StoredKey>;
}

export function readCredentials(home: string): CredentialsData {
  let text: string;
  sweepStaleTemps(home);
  try {
    text = fs.readFileSync(credentialsFile(home), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw new ConfigError(`cannot read ${credentialsFile(home)}: ${(e as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as Partial<CredentialsData>;
    return { profiles: data && typeof data.profiles === "object" && data.profiles ? data.profiles : {} };
  } catch {
    throw new ConfigError(`${credentialsFile(home)} is not valid JSON; run \`mediagen auth logout\` and log in again`);
  }
}

/** Writes the file with mode 0600 (dir 0700) through a temp file and rename: never half-written. */
function writeCredentials(home: string, data: CredentialsData): void {
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const file = credentialsFile(home);
  const tmp = path.join(home, `.credentials.${process.pid}.${Math.random().toString(16).slice(2, 10)}.tmp`);
  sweepStaleTemps(home);
  const fd = fs.openSync(tmp, "wx", 0o600);
  try {
    try {
      fs.writeFileSync(fd, JSON.stringify(data, null, 2) + "\n");
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    // A full disk (or any failure) leaves the old file as it was and nothing beside it.
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.chmodSync(file, 0o600);
}

const TEMP_NAME = /^\.credentials\.(\d+)\.[0-9a-f]*\.tmp$/;

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Temp files of writers that are gone (killed between open and rename) are removed. */
function sweepStaleTemps(home: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(home);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1] ?? NaN);
    if (Number.isInteger(pid) && pid !== process.pid && !running(pid)) fs.rmSync(path.join(home, name), { force: true });
  }
}

export function storedKey(home: string, profile: string): StoredKey | undefined {
  return readCredentials(home).profiles[profile];
}

/** Told why an unreadable credentials file is being replaced (its keys could not be read anyway). */
export type OnUnreadable = (reason: string) => void;

/**
 * The stored keys, or none when the file cannot be read: login and logout must repair a broken
 * file, not fail on it.
 */
function readForRewrite(home: string, onUnreadable?: OnUnreadable): { data: CredentialsData; unreadable: boolean } {
  try {
    return { data: readCredentials(home), unreadable: false };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    onUnreadable?.(e.message);
    return { data: { profiles: {} }, unreadable: true };
  }
}

export function saveKey(home: string, profile: string, apiKey: string, target: TargetName, now = new Date(), onUnreadable?: OnUnreadable): void {
  const { data } = readForRewrite(home, onUnreadable);
  data.profiles[profile] = { api_key: apiKey, target, stored_at: now.toISOString() };
  writeCredentials(home, data);
}

/** Removes the profile's key; an unreadable file is reset to no keys (and counts as removed). */
export function removeKey(home: string, profile: string, onUnreadable?: OnUnreadable): boolean {
  const { data, unreadable } = readForRewrite(home, onUnreadable);
  if (!unreadable && !(profile in data.profiles)) return false;
  delete data.profiles[profile];
  writeCredentials(home, data);
  return true;
}

export type KeyOrigin = "env" | "profile" | "none";

/**
 * MEDIAGEN_API_KEY beats the stored key; a stored key is used only for the target it was stored
 * for. `none` leaves the local target to fall back on the instance's default key. An unreadable
 * credentials file counts as no stored key, with a `warning` saying why.
 */
export function resolveKey(env: Env, home: string, profile: string, target: TargetName): { key?: string; origin: KeyOrigin; warning?: string } {
  const fromEnv = readEnv("MEDIAGEN_API_KEY", env);
  if (fromEnv) return { key: fromEnv, origin: "env" };
  let stored: StoredKey | undefined;
  try {
    stored = storedKey(home, profile);
  } catch (e) {
    // A broken credentials file must not stop every command (nor the logout that repairs it).
    if (e instanceof ConfigError) return { origin: "none", warning: e.message };
    throw e;
  }
  if (stored && (stored.target ?? target) === target && typeof stored.api_key === "string") return { key: stored.api_key, origin: "profile" };
  return { origin: "none" };
}
