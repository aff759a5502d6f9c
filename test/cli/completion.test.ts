import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, newHome, run } from "./helpers.js";

describe("completion", () => {
  it.each([
    ["bash", "mediagen.bash"],
    ["zsh", "_mediagen"],
    ["fish", "mediagen.fish"],
  ])("completion %s prints completions/%s with the path of this mediagen filled in", async (shell, file) => {
    const r = await run(["completion", shell]);
    expect(r.exitCode, r.stderr).toBe(0);
    const installed = fs.readFileSync(path.join(ROOT, "completions", file), "utf8");
    const bin = path.join(ROOT, "bin", "mediagen.js");
    // The one difference: where this mediagen is, for a shell where `mediagen` is not on PATH.
    const strip = (s: string) => s.replace(/^(set -g )?(__mediagen_(bin|node))[= ].*$/gm, "$2");
    expect(strip(r.stdout)).toBe(strip(installed));
    expect(r.stdout).toContain(`'${bin}'`);
    expect(installed).not.toContain(bin);
    expect(r.stdout).toContain("__complete words --");
  });

  describe("bash, where mediagen is only reachable through npx", () => {
    const bash = async (script: string, env: Record<string, string>) => {
      const { execa } = await import("execa");
      const home = newHome();
      return execa("bash", ["-c", script], { env: { MEDIAGEN_HOME: home, CI: "1", HOME: home, ...env }, extendEnv: false, reject: false });
    };
    /** COMPREPLY of `fn` for the words typed (the last one being completed). */
    const complete = (fn: string, words: string[]) =>
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; ${fn}; printf '%s\\n' "\${COMPREPLY[@]}"`;
    // No mediagen on this PATH (nor npx, nor node): only what the script itself knows.
    const BARE = { PATH: "/usr/bin:/bin" };

    it("the printed script completes `npx mediagen <TAB>` and `mediagen <TAB>` through the mediagen that printed it", async () => {
      const { execa } = await import("execa");
      expect((await execa("bash", ["-c", "command -v mediagen"], { env: BARE, extendEnv: false, reject: false })).exitCode).not.toBe(0);
      const script = (await run(["completion", "bash"])).stdout;
      const file = path.join(newHome(), "mediagen.bash");
      fs.writeFileSync(file, script);
      const npx = await bash(`source '${file}'; complete -p npx; ${complete("_mediagen_npx", ["npx", "mediagen", "fo"])}`, BARE);
      expect(npx.exitCode, npx.stderr).toBe(0);
      expect(npx.stdout).toContain("-F _mediagen_npx npx");
      expect(npx.stdout.split("\n")).toContain("folder");
      const direct = await bash(`source '${file}'; ${complete("_mediagen", ["mediagen", "folder", "cr"])}`, BARE);
      expect(direct.stdout.trim()).toBe("create");
      // Another npx command is left to file names.
      const other = await bash(`source '${file}'; ${complete("_mediagen_npx", ["npx", "prettier", "x"])}`, BARE);
      expect(other.stdout.trim()).toBe("");
    });

    it("the installed file (no path in it) falls back to `npx --no-install mediagen`", async () => {
      const dir = newHome();
      const shim = path.join(dir, "npx");
      // A stand-in for npx in a project where mediagen is installed.
      fs.writeFileSync(
        shim,
        `#!/bin/sh\n[ "$1" = --no-install ] && shift\n[ "$1" = mediagen ] && shift\nexec '${process.execPath}' '${path.join(ROOT, "bin", "mediagen.js")}' "$@"\n`,
        { mode: 0o755 },
      );
      const file = path.join(ROOT, "completions", "mediagen.bash");
      const r = await bash(`source '${file}'; ${complete("_mediagen_npx", ["npx", "mediagen", "as"])}`, { PATH: `${dir}:/usr/bin:/bin` });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe("asset");
    });

    it("an npx that already has a completion keeps it", async () => {
      const file = path.join(ROOT, "completions", "mediagen.bash");
      const r = await bash(`_mine() { :; }; complete -F _mine npx; source '${file}'; complete -p npx`, BARE);
      expect(r.stdout).toContain("-F _mine npx");
    });
  });

  it("bash: a completed word gets its trailing space (no -o nospace); file names remain the fallback", async () => {
    const { execa } = await import("execa");
    const script = path.join(ROOT, "completions", "mediagen.bash");
    const r = await execa("bash", ["-c", `source "${script}" && complete -p mediagen`], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("-o default");
    expect(r.stdout).not.toContain("nospace");
    expect(r.stdout).toContain("-F _mediagen");
  });

  it("an unknown shell is a usage error", async () => {
    expect((await run(["completion", "tcsh"])).exitCode).toBe(2);
  });

  it("__complete words walks commands, flags and choices (global flags stay words after --)", async () => {
    const cmds = await run(["__complete", "words", "--", "fo"]);
    expect(cmds.stdout.split("\n")[0]).toMatch(/^folder\t/);
    const flags = await run(["__complete", "words", "--", "folder", "create", "--js"]);
    expect(flags.stdout.split("\t")[0]).toBe("--json");
    const choices = await run(["__complete", "words", "--", "--json", "folder", "list", "--type", ""]);
    expect(choices.stdout).toBe("assets\nvideos\n");
    expect(choices.stderr).toBe("");
  });

  it("folder ids come from the engine and are cached for 10 minutes", async () => {
    const home = newHome();
    const f = (await run(["folder", "create", "--name", "Clips", "--json"], { home })).json<{ id: string }>();
    const first = await run(["__complete", "words", "--", "folder", "create", "--parent", ""], { home });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${f.id}\tClips (assets)`);
    const cache = fs.readdirSync(path.join(home, "cache"));
    expect(cache.some((n) => n.startsWith("complete-folders-"))).toBe(true);

    // A folder created now is not listed until the cache expires: the cache answered.
    const g = (await run(["folder", "create", "--name", "Later", "--json"], { home })).json<{ id: string }>();
    const cached = await run(["__complete", "folders"], { home });
    expect(cached.stdout).toContain(f.id);
    expect(cached.stdout).not.toContain(g.id);

    // Aged past 10 minutes, the cache is refreshed.
    const file = path.join(home, "cache", cache.find((n) => n.startsWith("complete-folders-"))!);
    const data = JSON.parse(fs.readFileSync(file, "utf8")) as { at: number };
    fs.writeFileSync(file, JSON.stringify({ ...data, at: data.at - 11 * 60_000 }));
    const fresh = await run(["__complete", "folders"], { home });
    expect(fresh.stdout).toContain(g.id);
  });

  it("prints nothing (and exits 0) when the engine fails", async () => {
    const r = await run(["__complete", "models"], {
      home: newHome(),
      env: { MEDIAGEN_TARGET: "hosted", MEDIAGEN_BASE_URL: "http://127.0.0.1:9", MEDIAGEN_API_KEY: "mg_live_" + "0".repeat(64) },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("");
  });
});
