/**
 * The same CLI commands against the local target and, through `--target hosted --base-url`, against
 * `mediagen serve`: their `--json` output must be the same (ids and timestamps aside). The commands
 * run in process (test/helpers/cli.ts); `serve` is the built binary, a real process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { assertBuilt, childEnv, startServe, type CliResult, type ServeChild } from "../http/serve-child.js";
import { runInProcess } from "../helpers/cli.js";
import { withCatalogPictures } from "../helpers/catalog-pictures.js";

type Env = Record<string, string | undefined>;
let localHome: string;
let servedHome: string;
let serve: ServeChild;
let key: string;
let localEnv: Env;
let hostedEnv: Env;

/** What a command sees besides the runner's defaults: its home, no colour, no proxy, nothing that picks a target. */
function cliEnv(home: string, extra: Record<string, string> = {}): Env {
  const env: Env = { MEDIAGEN_HOME: home, NO_COLOR: "1", ...extra };
  for (const k of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]) if (!(k in extra)) env[k] = undefined;
  return env;
}

/** `mediagen <args>` in process with exactly `env` on top of the runner's clean environment. */
async function runCli(args: string[], env: Env, input?: string): Promise<CliResult> {
  const r = await runInProcess(args, { home: env.MEDIAGEN_HOME!, env, ...(input !== undefined ? { input } : {}) });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** `mediagen local keys create --plan … --credits … --json` → the new key. */
async function createKey(env: Env, plan: string, credits: number): Promise<string> {
  const r = await runCli(["local", "keys", "create", "--plan", plan, "--credits", String(credits), "--json"], env);
  if (r.code !== 0) throw new Error(`local keys create failed (${r.code}): ${r.stderr}`);
  return (JSON.parse(r.stdout) as { api_key: string }).api_key;
}

/** Replaces ids (in order of first appearance) and timestamps, so two targets' outputs compare. */
function normalise(text: string): string {
  const ids = new Map<string, string>();
  return (
    text
      .replace(/\b[0-9a-f]{24}\b/g, (id) => {
        if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
        return ids.get(id)!;
      })
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
      // Media links differ by design: file:// in process, signed http from serve. The file is the same.
      .replace(/file:\/\/[^"\s]*?\/local\/media\/([^"\s?]+)/g, "<media:$1>")
      .replace(/http:\/\/127\.0\.0\.1:\d+\/media\/([^"\s?]+)\?exp=\d+&sig=[0-9a-f]{64}/g, "<media:$1>")
      // A refusal the hosted client makes before sending names the way around it; the local
      // instance's refusal is the service's own answer, with nothing to get around.
      .replace(/\nIf the service accepts this, send it with `mediagen api`[^\n]*/g, "")
  );
}

const local = (args: string[]) => runCli(args, localEnv);
const hosted = (args: string[]) => runCli(["--target", "hosted", "--base-url", serve.baseUrl, ...args], hostedEnv);

/** Runs each command on both targets (in parallel) and expects equal exit codes and outputs. */
async function compareOnBothTargets(script: string[][]): Promise<CliResult[]> {
  const run = async (exec: (a: string[]) => Promise<CliResult>) => {
    const out: CliResult[] = [];
    for (const args of script) out.push(await exec(args));
    return out;
  };
  const [a, b] = await Promise.all([run(local), run(hosted)]);
  script.forEach((args, i) => {
    const label = args.join(" ");
    expect([label, b[i]!.code]).toEqual([label, a[i]!.code]);
    expect([label, normalise(b[i]!.stdout)]).toEqual([label, normalise(a[i]!.stdout)]);
    // With --json an error is one JSON object on stderr: the same status, code and field.
    if (a[i]!.code !== 0) expect([label, normalise(b[i]!.stderr)]).toEqual([label, normalise(a[i]!.stderr)]);
  });
  return a;
}

beforeAll(async () => {
  assertBuilt();
  localHome = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  servedHome = fs.mkdtempSync(path.join(os.tmpdir(), "mg-"));
  // The catalog's pictures and English previews made once per test process, not by `avatar list` and `voice resources` on each target.
  const english = (v: { language: string }) => v.language === "en";
  await withCatalogPictures(localHome, english);
  await withCatalogPictures(servedHome, english);
  localEnv = cliEnv(localHome);
  serve = await startServe(childEnv(servedHome));
  key = await createKey(cliEnv(servedHome), "PRO", 100);
  // The hosted commands run from their own home: only the key and the base URL tie them to serve.
  hostedEnv = cliEnv(fs.mkdtempSync(path.join(os.tmpdir(), "mg-")), { MEDIAGEN_API_KEY: key });
});

afterAll(async () => {
  await serve?.stop("SIGTERM");
  // The local home's detached worker stays up to 15 s after its last job, writing its database's -wal
  // and -shm files: `local reset` stops it first (and waits), so removing the home does not race it.
  if (localEnv) {
    // Cleanup, not the subject: on a loaded machine reset may say to try again (a worker slow to act
    // on its SIGTERM), so this does, twice; a failure that stays shows reset's message.
    let reset = await runCli(["local", "reset", "--yes"], localEnv);
    for (let i = 0; i < 2 && reset.code !== 0; i++) reset = await runCli(["local", "reset", "--yes"], localEnv);
    expect(reset.code, reset.stderr).toBe(0);
  }
  for (const h of [localHome, servedHome, hostedEnv?.MEDIAGEN_HOME]) if (h) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

describe("the same commands on both targets", () => {
  it("give the same --json output for folder create and list, successes and errors", async () => {
    const script: ((parent: string) => string[])[] = [
      () => ["folder", "create", "--name", "Finals", "--type", "videos", "--json"],
      (parent) => ["folder", "create", "--name", "Cuts", "--type", "videos", "--parent", parent, "--json"],
      () => ["folder", "create", "--name", "Clips", "--json"],
      (parent) => ["folder", "create", "--name", "Wrong", "--type", "assets", "--parent", parent, "--json"],
      () => ["folder", "create", "--name", "", "--json"],
      () => ["folder", "list", "--json"],
      () => ["folder", "list", "--type", "videos", "--json"],
      () => ["folder", "list", "--type", "assets", "-q"],
    ];
    const run = async (exec: (a: string[]) => Promise<CliResult>) => {
      const results: CliResult[] = [];
      let parent = "";
      for (const step of script) {
        const r = await exec(step(parent));
        if (!parent && r.code === 0) parent = (JSON.parse(r.stdout) as { id: string }).id;
        results.push(r);
      }
      return results;
    };
    const [a, b] = await Promise.all([run(local), run(hosted)]);
    for (let i = 0; i < script.length; i++) {
      const label = script[i]!("<parent>").join(" ");
      expect([label, b[i]!.code]).toEqual([label, a[i]!.code]);
      expect([label, normalise(b[i]!.stdout)]).toEqual([label, normalise(a[i]!.stdout)]);
      if (a[i]!.code !== 0) {
        // Errors are one JSON object on stderr with --json: the same status, code and field.
        expect([label, normalise(b[i]!.stderr)]).toEqual([label, normalise(a[i]!.stderr)]);
      }
    }
    expect(a.map((r) => r.code)).toEqual([0, 0, 0, 2, 2, 0, 0, 0]);
    expect(JSON.parse(a[5]!.stdout).folders).toHaveLength(3);
  });

  it("give the same --json output for the asset commands", async () => {
    const models = JSON.parse((await local(["asset", "models", "--type", "image", "--json"])).stdout) as { models: { name: string; base_cost: number }[] };
    const model = [...models.models].sort((a, b) => a.base_cost - b.base_cost)[0]!.name;
    const results = await compareOnBothTargets([
      ["asset", "models", "--json"],
      ["asset", "models", "--type", "video", "--json"],
      ["asset", "model", model, "--json"],
      ["asset", "model", "no-such-model", "--json"],
      ["asset", "price", "--model", model, "--count", "3", "--json"],
      ["asset", "start", "--type", "image", "--model", model, "--prompt", "same on both targets", "--json"],
      ["asset", "start", "--type", "video", "--model", model, "--prompt", "wrong type", "--json"],
      ["asset", "status", "0123456789abcdef01234567", "--json"],
    ]);
    expect(results.map((r) => r.code === 0)).toEqual([true, true, true, false, true, true, false, false]);
  });

  it("give the same --json output for the voice and avatar commands", async () => {
    const results = await compareOnBothTargets([
      ["voice", "list", "--json"],
      ["voice", "resources", "--language", "en", "--json"],
      ["voice", "get", "no-such-voice", "--json"],
      ["avatar", "list", "--json"],
      ["avatar", "get", "no-such-avatar", "--json"],
    ]);
    expect(results.map((r) => r.code === 0)).toEqual([true, true, false, true, false]);
  });

  it("auth status shows the hosted target, base URL, key source and a masked key, and checks the key", async () => {
    const r = await hosted(["auth", "status", "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ target: "hosted", base_url: serve.baseUrl, key_source: "env", status: "ok" });
    expect(report.key).toMatch(/^mg_live_…[0-9a-f]{4}$/);
    expect(r.stdout + r.stderr).not.toContain(key);

    const bad = await runCli(["--target", "hosted", "--base-url", serve.baseUrl, "auth", "status", "--json"], {
      ...hostedEnv,
      MEDIAGEN_API_KEY: "mg_live_" + "1".repeat(64),
    });
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({ status: "invalid" });

    const free = await createKey(cliEnv(servedHome), "free", 5);
    const forbidden = await runCli(["--target", "hosted", "--base-url", serve.baseUrl, "auth", "status", "--json"], { ...hostedEnv, MEDIAGEN_API_KEY: free });
    expect(forbidden.code).toBe(3);
    expect(JSON.parse(forbidden.stdout)).toMatchObject({ status: "forbidden" });
  });

  it("works with a key stored in a profile by auth login, instead of MEDIAGEN_API_KEY", async () => {
    const profileEnv = cliEnv(fs.mkdtempSync(path.join(os.tmpdir(), "mg-")));
    try {
      const login = await runCli(
        ["--profile", "served", "--target", "hosted", "--base-url", serve.baseUrl, "auth", "login", "--with-key", "--json"],
        profileEnv,
        key + "\n",
      );
      expect(login.code).toBe(0);
      expect(login.stdout).not.toContain(key);

      const status = await runCli(["--profile", "served", "auth", "status", "--json"], profileEnv);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ profile: "served", target: "hosted", base_url: serve.baseUrl, key_source: "profile", status: "ok" });
      const listed = await runCli(["--profile", "served", "folder", "list", "--type", "videos", "--json"], profileEnv);
      expect(listed.code).toBe(0);
      // The same space as the MEDIAGEN_API_KEY runs: the same listing.
      expect(listed.stdout).toBe((await hosted(["folder", "list", "--type", "videos", "--json"])).stdout);
    } finally {
      fs.rmSync(profileEnv.MEDIAGEN_HOME!, { recursive: true, force: true });
    }
  });

  it("--debug traces hosted requests to stderr without the key or the Authorization header", async () => {
    const r = await hosted(["--debug", "folder", "list", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`GET ${serve.baseUrl}/folder/list`);
    expect(r.stderr).toMatch(/← 200 in \d+ ms, rate \d+\/100/);
    expect(r.stderr).not.toContain(key);
    expect(r.stderr).not.toContain(key.slice(8));
    expect(r.stderr.toLowerCase()).not.toContain("authorization");
    expect(JSON.parse(r.stdout)).toHaveProperty("folders");
  });

  it("reports an unreachable service as a network error, exit 1", async () => {
    const down = await runCli(["--target", "hosted", "--base-url", "http://127.0.0.1:1/api/public/v1", "folder", "list", "--json"], hostedEnv);
    expect(down.code).toBe(1);
    expect(down.stderr).not.toContain(key);
  });
});
