import fs from "node:fs";
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

/** flag > environment > selected profile > default, for the profile itself and each setting. */
export function resolveSettings(flags: ResolveFlags, env: Env, data: ConfigData): ResolvedSettings {
  const profile: Resolved<string> = nonEmpty(flags.profile)
    ? { value: validateProfileName(flags.profile, "--profile"), source: "flag" }
    : nonEmpty(env.MEDIAGEN_PROFILE)
      ? { value: validateProfileName(env.MEDIAGEN_PROFILE, "MEDIAGEN_PROFILE"), source: "env" }
      : { value: DEFAULT_PROFILE, source: "default" };
  const stored = data.profiles?.[profile.value] ?? {};

  const target: Resolved<TargetName> = nonEmpty(flags.target)
    ? { value: parseTarget(flags.target, "--target"), source: "flag" }
    : nonEmpty(env.MEDIAGEN_TARGET)
      ? { value: parseTarget(env.MEDIAGEN_TARGET, "MEDIAGEN_TARGET"), source: "env" }
      : nonEmpty(stored.target)
        ? { value: parseTarget(stored.target, `profile ${profile.value}`), source: "profile" }
        : { value: "local", source: "default" };

  const baseUrl: Resolved<string | undefined> = nonEmpty(flags.baseUrl)
    ? { value: normalizeBaseUrl(flags.baseUrl, "--base-url"), source: "flag" }
    : nonEmpty(env.MEDIAGEN_BASE_URL)
      ? { value: normalizeBaseUrl(env.MEDIAGEN_BASE_URL, "MEDIAGEN_BASE_URL"), source: "env" }
      : nonEmpty(stored.base_url)
        ? { value: normalizeBaseUrl(stored.base_url, `profile ${profile.value}`), source: "profile" }
        : { value: undefined, source: "default" };

  return { profile, target, baseUrl };
}

/** Validates and normalises a value before it is stored in a profile. */
export function normalizeProfileValue(key: string, value: string): { key: ProfileKey; value: string } {
  if (key === "target") return { key, value: parseTarget(value, "target") };
  if (key === "base_url") return { key, value: normalizeBaseUrl(value, "base_url") };
  throw new ConfigError(`unknown setting "${key}"; settings: ${PROFILE_KEYS.join(", ")}`, "key");
}

export function isProfileKey(key: string): key is ProfileKey {
  return (PROFILE_KEYS as readonly string[]).includes(key);
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
  if (!isProfileKey(key)) throw new ConfigError(`unknown setting "${key}"; settings: ${PROFILE_KEYS.join(", ")}`, "key");
  const store = await openConfigStore(home);
  const path = `profiles.${profile}.${key}`;
  const had = store.has(path);
  store.delete(path);
  return had;
}

export async function getProfileValue(home: string, profile: string, key: string): Promise<string | undefined> {
  if (!isProfileKey(key)) throw new ConfigError(`unknown setting "${key}"; settings: ${PROFILE_KEYS.join(", ")}`, "key");
  const store = await openConfigStore(home);
  const v = store.get(`profiles.${profile}.${key}`);
  return typeof v === "string" ? v : undefined;
}

export async function listProfiles(home: string): Promise<Record<string, ProfileSettings>> {
  const store = await openConfigStore(home);
  return (store.get("profiles") as Record<string, ProfileSettings> | undefined) ?? {};
}
