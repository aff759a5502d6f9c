import path from "node:path";
import os from "node:os";

export type Env = Record<string, string | undefined>;

/**
 * Where all state lives (config, credentials, the local instance). MEDIAGEN_HOME moves everything,
 * which is what tests and side-by-side installs rely on.
 */
export function mediagenHome(env: Env = process.env, platform: NodeJS.Platform = process.platform, homedir = os.homedir()): string {
  const explicit = env.MEDIAGEN_HOME;
  if (explicit && explicit.trim() !== "") return path.resolve(explicit);
  if (platform === "darwin") return path.join(homedir, "Library", "Application Support", "mediagen");
  if (platform === "win32") {
    const appData = env.APPDATA && env.APPDATA !== "" ? env.APPDATA : path.join(homedir, "AppData", "Roaming");
    return path.join(appData, "mediagen");
  }
  const xdg = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(homedir, ".local", "share");
  return path.join(xdg, "mediagen");
}

export const configFile = (home: string) => path.join(home, "config.json");
export const credentialsFile = (home: string) => path.join(home, "credentials.json");
export const cacheDir = (home: string) => path.join(home, "cache");
