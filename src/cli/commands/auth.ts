/**
 * `mediagen auth …`: store, remove and check the API key of a profile. The key is read from a
 * hidden prompt or stdin, never from a flag (flags show up in `ps`), and is never printed.
 */
import type { Command } from "commander";
import { readEnv } from "../../config/env.js";
import { CliError, EXIT, type IO } from "../types.js";
import type { CommandModule, ContextGetter } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { keyValues } from "../output.js";
import { defineFlags, type FlagInput } from "../flags.js";

type Getter = (cmd: Command) => CommandContext;

/** Asks for the key without echoing it (inquirer's password prompt on the terminal). */
export type HiddenPrompt = (io: Pick<IO, "stdin" | "stderr">) => Promise<string>;

const inquirerPrompt: HiddenPrompt = async (io) => {
  const { password } = await import("@inquirer/prompts");
  return password({ message: "API key (input hidden):" }, { input: io.stdin, output: io.stderr });
};

/**
 * The key, from stdin with --with-key or from a hidden prompt. A terminal on stdin would echo a
 * typed key, so --with-key on a terminal also prompts hidden, or fails when nobody may be prompted.
 */
export async function readKey(io: Pick<IO, "stdin" | "stderr" | "canPrompt">, withKey: boolean, prompt: HiddenPrompt = inquirerPrompt): Promise<string> {
  const stdinIsTTY = (io.stdin as { isTTY?: boolean }).isTTY === true;
  if (withKey && !stdinIsTTY) {
    const chunks: Buffer[] = [];
    for await (const c of io.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
    return Buffer.concat(chunks).toString("utf8").trim();
  }
  if (!io.canPrompt) {
    throw new CliError(
      withKey
        ? "--with-key: stdin is a terminal, where the key would show as typed; pipe the key in, e.g. `mediagen auth login --with-key < key.txt`"
        : "no terminal to prompt on: pipe the key instead, e.g. `mediagen auth login --with-key < key.txt`",
      EXIT.usage,
      "missing_field",
      "--with-key",
    );
  }
  return (await prompt(io)).trim();
}

export interface StatusReport {
  profile: string;
  target: string;
  base_url: string | null;
  key_source: string;
  key: string | null;
  status: "ok" | "invalid" | "forbidden" | "missing" | "unreachable" | "error";
  message: string;
  /** The key's space, plan and balance where the target can tell (the local instance); null otherwise. */
  space: { id: string; name: string } | null;
  plan: string | null;
  balance: number | null;
  /** Why space, plan and balance are null (the hosted API has no account endpoint). */
  account_note?: string;
}

/** What the hosted target says about the account: nothing, its API has no endpoint for it. */
export const HOSTED_ACCOUNT_NOTE = "the hosted API does not tell the space, plan or balance of a key; see the service's dashboard";

/**
 * Profile, target, base URL, key source and masked key, the key checked with a cheap call, and the
 * key's space, plan and balance where the target can tell. Used by `auth status` and `whoami`.
 * Returns the report and the exit code the check calls for.
 */
export async function statusReport(ctx: CommandContext): Promise<{ report: StatusReport; exit: number; code: string }> {
  const { config, key } = ctx.resolve();
  const { maskKey } = await import("../../engine/redact.js");
  let shownKey = key;
  if (!shownKey && config.target === "local") shownKey = (await ctx.localInstance()).defaultKey();
  const report: StatusReport = {
    profile: config.profile,
    target: config.target,
    base_url: config.baseUrl ?? null,
    key_source: config.keySource,
    key: shownKey ? maskKey(shownKey) : null,
    status: "ok",
    message: "the key works",
    space: null,
    plan: null,
    balance: null,
  };
  let exit: number = EXIT.ok;
  let code = "";
  if (!shownKey) {
    report.status = "missing";
    report.message = "no API key: run `mediagen auth login` or set MEDIAGEN_API_KEY";
    exit = EXIT.auth;
  } else {
    try {
      const engine = await ctx.engine();
      await engine.folderList({});
    } catch (e) {
      const err = e as { name?: string; status?: number; message?: string };
      if (e instanceof CliError) {
        report.status = "error";
        report.message = e.message;
        exit = e.exitCode;
        code = e.code;
      } else if (err.name === "ApiError" && (err.status === 401 || err.status === 403)) {
        report.status = err.status === 401 ? "invalid" : "forbidden";
        report.message = err.message ?? "rejected";
        exit = EXIT.auth;
      } else if (err.name === "NetworkError") {
        report.status = "unreachable";
        report.message = err.message ?? "unreachable";
        exit = EXIT.error;
      } else {
        // A 5xx, a 429 after retries, anything else: reported like the other outcomes, with its exit code.
        const { describeError } = await import("../errors.js");
        const info = describeError(e);
        report.status = "error";
        report.message = info.status !== null ? `HTTP ${info.status}: ${info.message}` : info.message;
        exit = info.exitCode === EXIT.ok ? EXIT.error : info.exitCode;
        code = info.code;
      }
    }
  }
  if (config.target === "local") {
    const space = await ctx.localSpace().catch(() => undefined);
    if (space) {
      report.space = { id: space.id, name: space.name };
      report.plan = space.plan;
      report.balance = space.credits;
    }
  } else {
    report.account_note = HOSTED_ACCOUNT_NOTE;
  }
  // A service may echo the key in its message: the report goes to stdout, so it is masked here.
  const { redact } = await import("../../engine/redact.js");
  report.message = redact(report.message);
  return { report, exit, code };
}

/** The report as people read it. */
export function statusLines(r: StatusReport): string[] {
  const account: Array<[string, unknown]> =
    r.space !== null
      ? [
          ["space", `${r.space.id} (${r.space.name})`],
          ["plan", r.plan],
          ["balance", r.balance === null ? null : `${r.balance} credit${r.balance === 1 ? "" : "s"}`],
        ]
      : r.account_note
        ? [["space", `unknown: ${r.account_note}`]]
        : [];
  return keyValues([
    ["profile", r.profile],
    ["target", r.target],
    ["base URL", r.base_url ?? (r.target === "local" ? "(local instance)" : null)],
    ["key source", r.key_source],
    ["key", r.key],
    ["status", `${r.status}: ${r.message}`],
    ...account,
  ]);
}

const LOGIN_FLAGS = defineFlags({
  withKey: { flag: "--with-key", type: "boolean", help: "read the key from stdin" },
});

export const command: CommandModule = {
  register(auth: Command, getContext: ContextGetter) {
    const get = getContext as Getter;
    examples(auth, ["mediagen auth login --target hosted --base-url https://api.example.com", "mediagen auth status"]);

    const login = LOGIN_FLAGS.addTo(auth.command("login").description("Store an API key for a profile (hidden prompt, or stdin with --with-key)")).action(
      async (opts: FlagInput<typeof LOGIN_FLAGS>, cmd: Command) => {
        const ctx = get(cmd);
        const { config: resolved, settings } = ctx.resolve();
        // A base URL is only for the hosted target: given at login without --target, it means hosted.
        const target = settings.target.source !== "flag" && settings.baseUrl.source === "flag" ? "hosted" : resolved.target;
        const config = { ...resolved, target };
        const [{ isValidKeyFormat, saveKey }, { credentialsFile }, { maskKey, registerSecret }] = await Promise.all([
          import("../../config/credentials.js"),
          import("../../config/paths.js"),
          import("../../engine/redact.js"),
        ]);
        const key = await readKey(ctx.io, opts.withKey === true);
        registerSecret(key);
        if (!isValidKeyFormat(key)) {
          throw new CliError("not an API key: expected <prefix>_live_ followed by 64 hexadecimal characters (e.g. mg_live_…)", EXIT.usage, "invalid_format", "api_key");
        }
        // Flags given at login become the profile's settings, so later commands need only --profile.
        if (settings.target.source === "flag" || settings.baseUrl.source === "flag") {
          const { setProfileValue } = await import("../../config/profiles.js");
          await setProfileValue(config.home, config.profile, "target", target);
          if (settings.baseUrl.source === "flag" && settings.baseUrl.value) {
            await setProfileValue(config.home, config.profile, "base_url", settings.baseUrl.value);
          }
        }
        saveKey(config.home, config.profile, key, target, new Date(), (why) => ctx.io.warn(`Warning: ${why}. Replacing it with a new file that holds only this key.`));
        const result = { profile: config.profile, target, base_url: settings.baseUrl.value ?? null, key: maskKey(key) };
        ctx.print(
          result,
          () => [],
          () => [],
        );
        if (!ctx.opts.json) {
          ctx.io.info(`Logged in: profile ${result.profile}, target ${result.target}${result.base_url ? ` (${result.base_url})` : ""}, key ${result.key}.`);
          ctx.io.info(`Key stored in ${credentialsFile(config.home)} (mode 0600).`);
        }
        if (config.target === "hosted" && !settings.baseUrl.value) {
          ctx.io.warn("No base URL for the hosted target yet: run `mediagen config set base_url <url>`.");
        }
        if (readEnv("MEDIAGEN_API_KEY", ctx.env)) ctx.io.warn("MEDIAGEN_API_KEY is set and takes precedence over the stored key.");
      },
    );
    examples(login, [
      "mediagen auth login --target hosted --base-url https://api.example.com",
      "mediagen auth login --with-key --profile ci < key.txt",
      "mediagen local keys create --plan PRO --credits 100 -q | mediagen auth login --with-key --profile local-pro",
    ]);

    const logout = auth
      .command("logout")
      .description("Remove the stored key of a profile")
      .action(async (_opts: unknown, cmd: Command) => {
        const ctx = get(cmd);
        const profile = ctx.profileName();
        const config = { home: ctx.home, profile };
        const { removeKey } = await import("../../config/credentials.js");
        const removed = removeKey(config.home, config.profile, (why) => ctx.io.warn(`Warning: ${why}. Resetting it: every stored key is removed.`));
        ctx.print(
          { profile: config.profile, removed },
          () => [],
          () => [],
        );
        if (!ctx.opts.json) {
          ctx.io.info(removed ? `Removed the key of profile ${config.profile}.` : `Profile ${config.profile} had no stored key.`);
        }
      });
    examples(logout, ["mediagen auth logout", "mediagen auth logout --profile ci"]);

    const status = auth
      .command("status")
      .description("Show profile, target, base URL and key source, and check the key with a cheap call")
      .action(async (_opts: unknown, cmd: Command) => {
        const ctx = get(cmd);
        const { report, exit, code } = await statusReport(ctx);
        ctx.print(report, statusLines, (r) => [r.status]);
        if (exit !== EXIT.ok) throw new CliError(`auth status: ${report.message}`, exit, code || `key_${report.status}`);
      });
    examples(status, ["mediagen auth status", "mediagen auth status --profile ci --json"]);
  },
};
