/** `mediagen config …`: the settings of a profile (target, base_url) in $MEDIAGEN_HOME/config.json. */
import type { Command } from "commander";
import type { CommandModule, ContextGetter } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { table, widthOf } from "../output.js";
import { readEnv } from "../../config/env.js";
import { PROFILE_KEYS } from "../../config/profiles.js";

type Getter = (cmd: Command) => CommandContext;

export const KEYS_HELP = `settings: ${PROFILE_KEYS.join(", ")}`;

/** `config get <key>`: one setting of the profile. */
function registerGet(config: Command, get: Getter): void {
  const getCmd = config
    .command("get")
    .description("Print a setting stored in the profile")
    .argument("<key>", KEYS_HELP)
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const { getProfileValue } = await import("../../config/profiles.js");
      const profile = ctx.profileName();
      const value = (await getProfileValue(ctx.home, profile, key)) ?? null;
      ctx.print(
        { profile, key, value },
        (r) => (r.value === null ? [] : [r.value]),
        (r) => (r.value === null ? [] : [r.value]),
      );
      if (value === null && !ctx.opts.json) ctx.io.info(`${key} is not set in profile ${profile}.`);
    });
  examples(getCmd, ["mediagen config get base_url", "mediagen config get target --profile prod"]);
}

/** `config set <key> <value>`: stores a setting in the profile. */
function registerSet(config: Command, get: Getter): void {
  const setCmd = config
    .command("set")
    .description("Store a setting in the profile")
    .argument("<key>", KEYS_HELP)
    .argument("<value>", "value (target: local|hosted; base_url: http(s) URL)")
    .action(async (key: string, value: string, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const { setProfileValue } = await import("../../config/profiles.js");
      const profile = ctx.profileName();
      const stored = await setProfileValue(ctx.home, profile, key, value);
      ctx.print(
        { profile, key, value: stored },
        () => [],
        (r) => [r.value],
      );
      if (!ctx.opts.json) ctx.io.info(`Set ${key} = ${stored} in profile ${profile}.`);
    });
  examples(setCmd, [
    "mediagen config set target hosted",
    "mediagen config set base_url https://api.example.com   # /api/public/v1 is appended",
    "mediagen config set target local --profile offline",
  ]);
}

/** `config unset <key>`: removes a setting from the profile. */
function registerUnset(config: Command, get: Getter): void {
  const unsetCmd = config
    .command("unset")
    .description("Remove a setting from the profile")
    .argument("<key>", KEYS_HELP)
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const { unsetProfileValue } = await import("../../config/profiles.js");
      const profile = ctx.profileName();
      const removed = await unsetProfileValue(ctx.home, profile, key);
      ctx.print(
        { profile, key, removed },
        () => [],
        () => [],
      );
      if (!ctx.opts.json) ctx.io.info(removed ? `Removed ${key} from profile ${profile}.` : `${key} was not set in profile ${profile}.`);
    });
  examples(unsetCmd, ["mediagen config unset base_url"]);
}

/** `config list`: the effective settings and their sources. */
function registerList(config: Command, get: Getter): void {
  const list = config
    .command("list")
    .description("Show the effective settings and where each comes from (flag, env, profile, default)")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const { inspectSettings, readConfig } = await import("../../config/profiles.js");
      // Inspected, not resolved: a bad value is shown (with a warning) so that it can be fixed.
      const settings = inspectSettings(ctx.opts, ctx.env, readConfig(ctx.home));
      const rows = [
        { key: "profile", value: settings.profile.value as string | null, source: settings.profile.source as string },
        { key: "target", value: settings.target.value ?? "local", source: settings.target.source },
        { key: "base_url", value: settings.baseUrl.value ?? null, source: settings.baseUrl.source },
        { key: "home", value: ctx.home, source: readEnv("MEDIAGEN_HOME", ctx.env) ? "env" : "default" },
      ];
      for (const [key, s] of [
        ["target", settings.target],
        ["base_url", settings.baseUrl],
      ] as const) {
        if (!s.problem) continue;
        const fix = s.source === "profile" ? ` Fix it with \`mediagen config set ${key} <value>\` or \`mediagen config unset ${key}\`.` : "";
        ctx.io.warn(`Warning: ${s.problem.message}.${fix}`);
      }
      ctx.print(
        rows,
        (r) =>
          table(
            r,
            [
              { header: "key", get: (x) => x.key, id: true },
              { header: "value", get: (x) => x.value, id: true },
              { header: "source", get: (x) => x.source },
            ],
            widthOf(ctx.io),
          ),
        (r) => r.map((x) => `${x.key}=${x.value ?? ""}`),
      );
    });
  examples(list, ["mediagen config list", "MEDIAGEN_TARGET=hosted mediagen config list --json"]);
}

export const command: CommandModule = {
  register(config: Command, getContext: ContextGetter) {
    const get = getContext as Getter;
    examples(config, ["mediagen config set target hosted", "mediagen config list"]);
    registerGet(config, get);
    registerSet(config, get);
    registerUnset(config, get);
    registerList(config, get);
  },
};
