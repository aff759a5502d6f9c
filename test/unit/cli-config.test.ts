import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mediagenHome } from "../../src/config/paths.js";
import {
  ConfigError,
  inspectSettings,
  normalizeBaseUrl,
  resolveProfile,
  readConfig,
  resolveSettings,
  setProfileValue,
  getProfileValue,
  unsetProfileValue,
} from "../../src/config/profiles.js";
import { isValidKeyFormat, removeKey, resolveKey, saveKey, storedKey } from "../../src/config/credentials.js";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
const KEY = "mg_live_" + "ab".repeat(32);
const KEY2 = "mg_live_" + "cd".repeat(32);

describe("mediagenHome", () => {
  const cases: Array<[string, Record<string, string>, NodeJS.Platform, string]> = [
    ["MEDIAGEN_HOME wins", { MEDIAGEN_HOME: "/x/y", XDG_DATA_HOME: "/xdg" }, "linux", "/x/y"],
    ["XDG_DATA_HOME on Linux", { XDG_DATA_HOME: "/xdg" }, "linux", "/xdg/mediagen"],
    ["relative XDG_DATA_HOME is ignored", { XDG_DATA_HOME: "rel" }, "linux", "/home/u/.local/share/mediagen"],
    ["Linux default", {}, "linux", "/home/u/.local/share/mediagen"],
    ["macOS", {}, "darwin", "/home/u/Library/Application Support/mediagen"],
    ["Windows APPDATA", { APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "win32", path.join("C:\\Users\\u\\AppData\\Roaming", "mediagen")],
  ];
  it.each(cases)("%s", (_n, env, platform, expected) => {
    expect(mediagenHome(env, platform, "/home/u")).toBe(expected);
  });
});

describe("normalizeBaseUrl", () => {
  const cases: Array<[string, string]> = [
    ["https://api.example.com", "https://api.example.com/api/public/v1"],
    ["https://api.example.com/", "https://api.example.com/api/public/v1"],
    ["https://api.example.com/api/public/v1", "https://api.example.com/api/public/v1"],
    ["https://api.example.com/api/public/v1/", "https://api.example.com/api/public/v1"],
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080/api/public/v1"],
    ["https://example.com/proxy", "https://example.com/proxy/api/public/v1"],
  ];
  it.each(cases)("%s → %s", (input, out) => expect(normalizeBaseUrl(input, "x")).toBe(out));
  it.each(["not a url", "ftp://example.com", "https://user:pw@example.com"])("rejects %s", (bad) => {
    expect(() => normalizeBaseUrl(bad, "x")).toThrow(ConfigError);
  });
});

describe("resolveSettings: flag > env > profile > default", () => {
  const data = {
    profiles: {
      default: { target: "hosted" as const, base_url: "https://profile.example.com" },
      other: { target: "local" as const },
    },
  };
  const cases: Array<[string, Parameters<typeof resolveSettings>[0], Record<string, string>, string, string, string | undefined, string]> = [
    ["defaults", {}, {}, "default", "local", undefined, "default"],
    ["profile values", {}, {}, "default", "hosted", "https://profile.example.com/api/public/v1", "profile"],
    ["env beats profile", {}, { MEDIAGEN_TARGET: "local" }, "default", "local", "https://profile.example.com/api/public/v1", "env"],
    ["flag beats env", { target: "hosted" }, { MEDIAGEN_TARGET: "local" }, "default", "hosted", "https://profile.example.com/api/public/v1", "flag"],
    ["MEDIAGEN_PROFILE selects the profile", {}, { MEDIAGEN_PROFILE: "other" }, "other", "local", undefined, "profile"],
    [
      "--profile beats MEDIAGEN_PROFILE",
      { profile: "default" },
      { MEDIAGEN_PROFILE: "other" },
      "default",
      "hosted",
      "https://profile.example.com/api/public/v1",
      "profile",
    ],
  ];
  it.each(cases)("%s", (name, flags, env, profile, target, baseUrl, targetSource) => {
    const r = resolveSettings(flags, env, name === "defaults" ? {} : data);
    expect(r.profile.value).toBe(profile);
    expect(r.target.value).toBe(target);
    expect(r.target.source).toBe(targetSource);
    expect(r.baseUrl.value).toBe(baseUrl);
  });

  it("base URL: flag > env > profile, normalised", () => {
    expect(resolveSettings({ baseUrl: "http://flag" }, { MEDIAGEN_BASE_URL: "http://env" }, data).baseUrl).toEqual({
      value: "http://flag/api/public/v1",
      source: "flag",
    });
    expect(resolveSettings({}, { MEDIAGEN_BASE_URL: "http://env" }, data).baseUrl).toEqual({ value: "http://env/api/public/v1", source: "env" });
  });

  it("rejects a bad target or profile name wherever it comes from", () => {
    expect(() => resolveSettings({ target: "cloud" }, {}, {})).toThrow(/target must be/);
    expect(() => resolveSettings({}, { MEDIAGEN_TARGET: "cloud" }, {})).toThrow(/MEDIAGEN_TARGET/);
    expect(() => resolveSettings({ profile: "../etc" }, {}, {})).toThrow(/profile names/);
  });
});

describe("a bad stored value does not lock the user out", () => {
  const bad = { profiles: { default: { base_url: "ftp://x" }, broken: { target: "cloud" as never } } };

  it("a bad base_url is ignored by the local target, and fails for the hosted one", () => {
    expect(resolveSettings({}, {}, bad).baseUrl).toEqual({ value: undefined, source: "profile" });
    expect(resolveSettings({}, {}, bad).target.value).toBe("local");
    expect(() => resolveSettings({ target: "hosted" }, {}, bad)).toThrow(/profile default: base URL must be http/);
    expect(() => resolveSettings({}, { MEDIAGEN_TARGET: "hosted" }, bad)).toThrow(ConfigError);
  });

  it("a bad --base-url flag fails even for the local target (it was typed just now)", () => {
    expect(() => resolveSettings({ baseUrl: "ftp://x" }, {}, {})).toThrow(/--base-url/);
  });

  it("a bad stored target fails resolution but is inspectable, and the profile resolves alone", () => {
    expect(() => resolveSettings({ profile: "broken" }, {}, bad)).toThrow(/profile broken: target must be/);
    const seen = inspectSettings({ profile: "broken" }, {}, bad);
    expect(seen.target).toMatchObject({ value: "cloud", source: "profile", problem: expect.any(ConfigError) });
    expect(inspectSettings({}, {}, bad).baseUrl).toMatchObject({ value: "ftp://x", source: "profile", problem: expect.any(ConfigError) });
    expect(inspectSettings({}, {}, { profiles: { default: { base_url: "https://p.example.com" } } }).baseUrl).toEqual({
      value: "https://p.example.com/api/public/v1",
      source: "profile",
    });
    expect(resolveProfile({ profile: "broken" }, {})).toEqual({ value: "broken", source: "flag" });
    expect(resolveProfile({}, { MEDIAGEN_PROFILE: "ci" })).toEqual({ value: "ci", source: "env" });
    expect(() => resolveProfile({ profile: "../x" }, {})).toThrow(ConfigError);
  });
});

describe("config file (conf)", () => {
  it("set/get/unset round-trip through config.json, readable without conf", async () => {
    const home = tmp();
    expect(await setProfileValue(home, "prod", "base_url", "https://api.example.com")).toBe("https://api.example.com/api/public/v1");
    await setProfileValue(home, "prod", "target", "HOSTED");
    expect(await getProfileValue(home, "prod", "target")).toBe("hosted");
    expect(readConfig(home).profiles?.prod).toEqual({ base_url: "https://api.example.com/api/public/v1", target: "hosted" });
    expect(await unsetProfileValue(home, "prod", "target")).toBe(true);
    expect(await unsetProfileValue(home, "prod", "target")).toBe(false);
    await expect(setProfileValue(home, "prod", "colour", "x")).rejects.toThrow(/unknown setting/);
    await expect(setProfileValue(home, "prod", "target", "cloud")).rejects.toThrow(ConfigError);
  });

  it("a corrupt config file is a config error, not a crash", () => {
    const home = tmp();
    fs.writeFileSync(path.join(home, "config.json"), "{oops");
    expect(() => readConfig(home)).toThrow(ConfigError);
  });
});

describe("credentials", () => {
  it("validates the key format", () => {
    expect(isValidKeyFormat(KEY)).toBe(true);
    expect(isValidKeyFormat(KEY.toUpperCase().replace("MG_LIVE_", "mg_live_"))).toBe(true);
    expect(isValidKeyFormat(KEY.slice(0, -1))).toBe(false);
    expect(isValidKeyFormat("mg_test_" + "ab".repeat(32))).toBe(false);
    expect(isValidKeyFormat(KEY + "0")).toBe(false);
  });

  it("stores keys per profile in a 0600 file inside a 0700 dir", () => {
    const home = path.join(tmp(), "nested");
    saveKey(home, "default", KEY, "hosted");
    saveKey(home, "ci", KEY2, "local");
    const file = path.join(home, "credentials.json");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
    expect(storedKey(home, "default")?.api_key).toBe(KEY);
    expect(removeKey(home, "default")).toBe(true);
    expect(removeKey(home, "default")).toBe(false);
    expect(storedKey(home, "ci")?.api_key).toBe(KEY2);
    expect(fs.readdirSync(home).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("MEDIAGEN_API_KEY beats the stored key; a stored key only serves its own target", () => {
    const home = tmp();
    saveKey(home, "default", KEY, "hosted");
    expect(resolveKey({ MEDIAGEN_API_KEY: KEY2 }, home, "default", "hosted")).toEqual({ key: KEY2, origin: "env" });
    expect(resolveKey({}, home, "default", "hosted")).toEqual({ key: KEY, origin: "profile" });
    expect(resolveKey({}, home, "default", "local")).toEqual({ origin: "none" });
    expect(resolveKey({}, home, "other", "hosted")).toEqual({ origin: "none" });
  });

  describe.each([
    ["not JSON", "{oops"],
    ["a directory", null],
  ])("an unreadable credentials file (%s)", (_n, content) => {
    const broken = () => {
      const home = tmp();
      const file = path.join(home, "credentials.json");
      if (content === null) fs.mkdirSync(file);
      else fs.writeFileSync(file, content, { mode: 0o600 });
      return home;
    };

    it("key resolution warns and goes on as if no key were stored", () => {
      const r = resolveKey({}, broken(), "default", "hosted");
      expect(r).toMatchObject({ origin: "none", warning: expect.stringContaining("credentials.json") });
      expect(r.key).toBeUndefined();
      expect(resolveKey({ MEDIAGEN_API_KEY: KEY }, broken(), "default", "hosted")).toEqual({ key: KEY, origin: "env" });
    });
  });

  it("login replaces a corrupt file (0600) and logout resets it, both saying why", () => {
    const broken = () => {
      const home = tmp();
      fs.writeFileSync(path.join(home, "credentials.json"), "{oops", { mode: 0o600 });
      return home;
    };
    {
      const home = broken();
      const why: string[] = [];
      saveKey(home, "ci", KEY, "local", new Date(), (w) => why.push(w));
      expect(why).toHaveLength(1);
      expect(storedKey(home, "ci")?.api_key).toBe(KEY);
      expect(fs.statSync(path.join(home, "credentials.json")).mode & 0o777).toBe(0o600);

      const again = broken();
      expect(removeKey(again, "default", (w) => why.push(w))).toBe(true);
      expect(JSON.parse(fs.readFileSync(path.join(again, "credentials.json"), "utf8"))).toEqual({ profiles: {} });
      expect(fs.statSync(path.join(again, "credentials.json")).mode & 0o777).toBe(0o600);
      expect(why).toHaveLength(2);
    }
  });
});
