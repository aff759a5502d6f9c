import path from "node:path";
import os from "node:os";
import { readEnv, type Env } from "./env.js";

export type { Env };

/**
 * Where all state lives (config, credentials, the local instance). MEDIAGEN_HOME moves everything,
 * which is what tests and side-by-side installs rely on.
 */
export function mediagenHome(env?: Env, platform: NodeJS.Platform = process.platform, homedir = os.homedir()): string {
  const explicit = readEnv("MEDIAGEN_HOME", env);
  if (explicit) return path.resolve(explicit);
  if (platform === "darwin") return path.join(homedir, "Library", "Application Support", "mediagen");
  if (platform === "win32") {
    const appData = readEnv("APPDATA", env) ?? path.join(homedir, "AppData", "Roaming");
    return path.join(appData, "mediagen");
  }
  const fromEnv = readEnv("XDG_DATA_HOME", env);
  // The XDG base directory spec says a relative value is invalid and must be ignored.
  const xdg = fromEnv && path.isAbsolute(fromEnv) ? fromEnv : path.join(homedir, ".local", "share");
  return path.join(xdg, "mediagen");
}

export const configFile = (home: string) => path.join(home, "config.json");
export const credentialsFile = (home: string) => path.join(home, "credentials.json");
export const cacheDir = (home: string) => path.join(home, "cache");
