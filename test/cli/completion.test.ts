import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, newHome, run } from "./helpers.js";

describe("completion", () => {
  it.each([
    ["bash", "mediagen.bash"],
    ["zsh", "_mediagen"],
    ["fish", "mediagen.fish"],
  ])("completion %s prints completions/%s", async (shell, file) => {
    const r = await run(["completion", shell]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(fs.readFileSync(path.join(ROOT, "completions", file), "utf8"));
    expect(r.stdout).toContain("mediagen __complete words --");
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
