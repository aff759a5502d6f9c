import fs from "node:fs";
import { readEnv } from "./env.js";
import { configFile, type Env } from "./paths.js";

export type TargetName = "local" | "hosted";
export type Source = "flag" | "env" | "profile" | "default";

/** Settings a profile may hold. Keep this list short: everything else is a flag. */
export const PROFILE_KEYS = ["target", "base_url"] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];

export interface ProfileSettings {
  target?: TargetName;
  base_url?: string;
}

export interface ConfigData {
  profiles?: Record<string, ProfileSettings>;
}

/** The same prefix as contract/operations.ts API_PREFIX, kept here so config stays free of zod. */
export const API_PREFIX = "/api/public/v1";
export const DEFAULT_PROFILE = "default";

/** A configuration problem the user must fix (bad value, unreadable file): a usage error. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export function parseTarget(value: string, from: string): TargetName {
  const v = value.trim().toLowerCase();
  if (v === "local" || v === "hosted") return v;
  throw new ConfigError(`${from}: target must be "local" or "hosted", got "${value}"`, "target");
}

export function validateProfileName(name: string, from: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new ConfigError(`${from}: profile names use letters, digits, "-" and "_" only, got "${name}"`, "profile");
  }
  return name;
}

/**
 * Accepts a service root or a full base URL and returns the base URL ending in the API prefix,
 * so users can paste either form.
 */
export function normalizeBaseUrl(value: string, from: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(`${from}: not a URL: "${value}"`, "base_url");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${from}: base URL must be http(s), got "${url.protocol}"`, "base_url");
  }
  if (url.username || url.password) throw new ConfigError(`${from}: base URL must not carry credentials`, "base_url");
  url.search = "";
  url.hash = "";
  let p = url.pathname.replace(/\/+$/, "");
  if (!p.endsWith(API_PREFIX)) p += API_PREFIX;
  url.pathname = p;
  return url.toString().replace(/\/+$/, "");
}

/**
 * Reads config.json directly. The file is conf's plain JSON; reading it without conf keeps every
 * command from paying for conf's import (ajv) when it only needs two values.
 */
export function readConfig(home: string): ConfigData {
  let text: string;
  try {
    text = fs.readFileSync(configFile(home), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ConfigError(`cannot read ${configFile(home)}: ${(e as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as unknown;
    return data && typeof data === "object" && !Array.isArray(data) ? (data as ConfigData) : {};
  } catch {
    throw new ConfigError(`${configFile(home)} is not valid JSON; fix or delete it`);
  }
}

export interface ResolveFlags {
  target?: string;
  baseUrl?: string;
  profile?: string;
}

export interface Resolved<T> {
  value: T;
  source: Source;
}

export interface ResolvedSettings {
  profile: Resolved<string>;
  target: Resolved<TargetName>;
  baseUrl: Resolved<string | undefined>;
}

const nonEmpty = (s: string | undefined): s is string => s !== undefined && s.trim() !== "";

/** The profile in use: --profile > MEDIAGEN_PROFILE > "default". Needs nothing else to be valid. */
export function resolveProfile(flags: Pick<ResolveFlags, "profile">, env: Env): Resolved<string> {
  if (nonEmpty(flags.profile)) return { value: validateProfileName(flags.profile, "--profile"), source: "flag" };
  const fromEnv = readEnv("MEDIAGEN_PROFILE", env);
  if (fromEnv !== undefined) return { value: validateProfileName(fromEnv, "MEDIAGEN_PROFILE"), source: "env" };
  return { value: DEFAULT_PROFILE, source: "default" };
}

/** A setting as found: normalised when valid; as written, with the reason, when not. */
export interface Inspected<T> {
  value: T | undefined;
  source: Source;
  /** Set when the value is not valid: `value` is then the text as written. */
  problem?: ConfigError;
}

export interface InspectedSettings {
  profile: Resolved<string>;
  target: Inspected<string>;
  baseUrl: Inspected<string>;
}

interface Found {
  raw: string;
  source: Source;
  /** Names the origin in error messages: "--target", "MEDIAGEN_TARGET", "profile prod". */
  from: string;
}

function pick(
  names: { flag: string; env: "MEDIAGEN_TARGET" | "MEDIAGEN_BASE_URL" },
  flag: string | undefined,
  env: Env,
  stored: string | undefined,
  profile: string,
): Found | undefined {
  if (nonEmpty(flag)) return { raw: flag, source: "flag", from: names.flag };
  const fromEnv = readEnv(names.env, env);
  if (fromEnv !== undefined) return { raw: fromEnv, source: "env", from: names.env };
  if (nonEmpty(stored)) return { raw: stored, source: "profile", from: `profile ${profile}` };
  return undefined;
}

function inspect<T extends string>(found: Found | undefined, parse: (raw: string, from: string) => T): Inspected<T> {
  if (!found) return { value: undefined, source: "default" };
  try {
    return { value: parse(found.raw, found.from), source: found.source };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { value: found.raw as T, source: found.source, problem: e };
  }
}

/**
 * Every setting with its source, without failing on a bad one: what `config list` shows, and what
 * resolveSettings judges. A bad value stored in a profile must not stop the commands that fix it.
 */
export function inspectSettings(flags: ResolveFlags, env: Env, data: ConfigData): InspectedSettings {
  const profile = resolveProfile(flags, env);
  const stored = data.profiles?.[profile.value] ?? {};
  const target = inspect(pick({ flag: "--target", env: "MEDIAGEN_TARGET" }, flags.target, env, stored.target, profile.value), parseTarget);
  const baseUrl = inspect(pick({ flag: "--base-url", env: "MEDIAGEN_BASE_URL" }, flags.baseUrl, env, stored.base_url, profile.value), normalizeBaseUrl);
  return { profile, target, baseUrl };
}

/**
 * flag > environment > selected profile > default, for the profile itself and each setting. A bad
 * target always fails; a bad base URL fails when it matters: for the hosted target, or when given
 * as a flag (typed just now). Otherwise the local target ignores it.
 */
export function resolveSettings(flags: ResolveFlags, env: Env, data: ConfigData): ResolvedSettings {
  const s = inspectSettings(flags, env, data);
  if (s.target.problem) throw s.target.problem;
  const target: Resolved<TargetName> = { value: (s.target.value as TargetName | undefined) ?? "local", source: s.target.source };
  if (s.baseUrl.problem && (target.value === "hosted" || s.baseUrl.source === "flag")) throw s.baseUrl.problem;
  const baseUrl: Resolved<string | undefined> = { value: s.baseUrl.problem ? undefined : s.baseUrl.value, source: s.baseUrl.source };
  return { profile: s.profile, target, baseUrl };
}

function profileKey(key: string): ProfileKey {
  if (!(PROFILE_KEYS as readonly string[]).includes(key)) throw new ConfigError(`unknown setting "${key}"; settings: ${PROFILE_KEYS.join(", ")}`, "key");
  return key as ProfileKey;
}

const NORMALIZE: Record<ProfileKey, (value: string, from: string) => string> = { target: parseTarget, base_url: normalizeBaseUrl };

/** Validates and normalises a value before it is stored in a profile. */
export function normalizeProfileValue(key: string, value: string): { key: ProfileKey; value: string } {
  const k = profileKey(key);
  return { key: k, value: NORMALIZE[k](value, k) };
}

/** conf store over $MEDIAGEN_HOME/config.json, for commands that write settings. */
export async function openConfigStore(home: string) {
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const { default: Conf } = await import("conf");
  return new Conf<Record<string, unknown>>({ cwd: home, configName: "config", projectName: "mediagen", projectSuffix: "" });
}

export async function setProfileValue(home: string, profile: string, key: string, value: string): Promise<string> {
  const n = normalizeProfileValue(key, value);
  const store = await openConfigStore(home);
  store.set(`profiles.${profile}.${n.key}`, n.value);
  return n.value;
}

export async function unsetProfileValue(home: string, profile: string, key: string): Promise<boolean> {
  const path = `profiles.${profile}.${profileKey(key)}`;
  const store = await openConfigStore(home);
  const had = store.has(path);
  store.delete(path);
  return had;
}

export async function getProfileValue(home: string, profile: string, key: string): Promise<string | undefined> {
  const path = `profiles.${profile}.${profileKey(key)}`;
  const store = await openConfigStore(home);
  const v = store.get(path);
  return typeof v === "string" ? v : undefined;
}

export async function listProfiles(home: string): Promise<Record<string, ProfileSettings>> {
  const store = await openConfigStore(home);
  return (store.get("profiles") as Record<string, ProfileSettings> | undefined) ?? {};
}
