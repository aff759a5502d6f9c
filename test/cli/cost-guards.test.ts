/**
 * Cost guards (issue 11): `--dry-run` prints the price and starts nothing; `--max-credits` refuses a
 * dearer start (exit 2, nothing started); on a terminal a start above MEDIAGEN_CONFIRM_ABOVE asks
 * first, and never off a terminal.
 */
import { describe, expect, it } from "vitest";
import { localKey, newHome, run, type RunOptions } from "./helpers.js";

/** The credits of the default space and the number of jobs in the history: what a start changes. */
async function state(home: string, key: string) {
  const who = (await run(["whoami", "--json"], { home, env: { MEDIAGEN_API_KEY: key } })).json<{ balance: number }>();
  const history = (await run(["history", "--limit", "0", "--json"], { home })).json<unknown[]>();
  return { balance: who.balance, jobs: history.length };
}

const VIDEO = ["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "waves", "--count", "2"];
/** A terminal on stdin, stdout and stderr, with prompting allowed (no CI). */
const terminal = (input: string, env: Record<string, string | undefined> = {}): RunOptions => ({
  tty: { stdin: true, stdout: true, stderr: true, columns: 100 },
  input,
  env: { CI: undefined, ...env },
});

describe("asset start --dry-run", () => {
  it("prints the price of exactly this request and starts nothing", async () => {
    const home = newHome();
    const { api_key } = await localKey("PRO", 500, home);
    const before = await state(home, api_key);
    const r = await run([...VIDEO, "--duration", "6", "--dry-run", "--json"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ model: "vidA-3", generation_count: 2, total_cost: expect.any(Number) });
    const human = await run([...VIDEO, "--dry-run"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(human.stdout).toBe("vidA-3: 32 credits per generation × 2 = 64 credits\n");
    expect(human.stderr).toMatch(/nothing was started/);
    expect(await state(home, api_key)).toEqual(before);
  });

  it("generate --dry-run: the estimate of a prompt and of a script (the same the local instance then debits)", async () => {
    const home = newHome();
    const prompt = await run(["generate", "--prompt", "why cats purr", "--duration", "45", "--dry-run", "--json"], { home });
    expect(prompt.exitCode, prompt.stderr).toBe(0);
    expect(prompt.json()).toMatchObject({ estimated_credits: 10, seconds: 45, exact: true });
    const script = "Cats purr when they are content. They also purr when they are hurt. Nobody knows quite why. ".repeat(6);
    const dry = (await run(["generate", "--script", script, "--voice", "vc_emma", "--dry-run", "--json"], { home })).json<{ estimated_credits: number }>();
    const started = await run(["generate", "--script", script, "--voice", "vc_emma", "--json"], { home });
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.json<{ estimated_credits: number }>().estimated_credits).toBe(dry.estimated_credits);
    // Supplied speech is measured when the job starts: said, not guessed.
    const media = await run(["generate", "--voice-url", "speech.mp3", "--dry-run"], { home });
    expect(media.exitCode).toBe(0);
    expect(media.stdout).toMatch(/^Not known before it starts/);
  });
});

describe("--max-credits", () => {
  it("refuses a start that would cost more: exit 2, nothing started, nothing debited", async () => {
    const home = newHome();
    const { api_key } = await localKey("PRO", 500, home);
    const before = await state(home, api_key);
    const r = await run([...VIDEO, "--max-credits", "40", "--json"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.errorLine()).toMatchObject({ code: "over_max_credits", field: "--max-credits" });
    expect(r.errorLine()?.message).toMatch(/64 credits, more than 40 credits; nothing was started/);
    expect(await state(home, api_key)).toEqual(before);
    const ok = await run([...VIDEO, "--max-credits", "64", "-q"], { home, env: { MEDIAGEN_API_KEY: api_key } });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout.trim().split("\n")).toHaveLength(2);
  });

  it("generate: above the estimate is refused; a price that cannot be known before starting is refused too", async () => {
    const home = newHome();
    const r = await run(["generate", "--prompt", "why cats purr", "--duration", "120", "--max-credits", "10"], { home });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/would cost 25 credits, more than 10 credits/);
    const media = await run(["generate", "--voice-url", "speech.mp3", "--max-credits", "100"], { home });
    expect(media.exitCode).toBe(2);
    expect(media.stderr).toMatch(/not known before it starts/);
    expect((await run(["history", "--json"], { home })).json()).toEqual([]);
  });
});

describe("confirmation on a terminal above MEDIAGEN_CONFIRM_ABOVE (default 50)", () => {
  it("asks; no starts nothing (exit 1), yes starts", async () => {
    const home = newHome();
    const { api_key } = await localKey("PRO", 500, home);
    const env = { MEDIAGEN_API_KEY: api_key };
    const before = await state(home, api_key);
    const no = await run([...VIDEO], { home, ...terminal("n\n", env) });
    expect(no.exitCode).toBe(1);
    expect(no.stderr).toMatch(/Start 2 generations of vidA-3 for 64 credits\? .*\[y\/N\]/);
    expect(no.stderr).toMatch(/Not started/);
    expect(await state(home, api_key)).toEqual(before);
    const yes = await run([...VIDEO], { home, ...terminal("y\n", env) });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect((await state(home, api_key)).jobs).toBe(before.jobs + 2);
  });

  it("does not ask below the threshold, with --yes, with MEDIAGEN_CONFIRM_ABOVE=off, or with a higher threshold", async () => {
    const home = newHome();
    for (const [args, env] of [
      [["asset", "start", "--type", "video", "--model", "vidA-3", "--prompt", "waves"], {}],
      [[...VIDEO, "--yes"], {}],
      [VIDEO, { MEDIAGEN_CONFIRM_ABOVE: "off" }],
      [VIDEO, { MEDIAGEN_CONFIRM_ABOVE: "100" }],
    ] as const) {
      const r = await run([...args], { home, ...terminal("", env) });
      expect(r.exitCode, `${args.join(" ")} ${JSON.stringify(env)}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(/\[y\/N\]/);
    }
  });

  it("never asks off a terminal (or with CI): the start goes ahead", async () => {
    const home = newHome();
    const piped = await run([...VIDEO, "-q"], { home, env: { CI: undefined } });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stderr).not.toMatch(/\[y\/N\]/);
    const ci = await run([...VIDEO, "-q"], { home, tty: { stdin: true, stdout: true, stderr: true }, env: { CI: "1" } });
    expect(ci.exitCode, ci.stderr).toBe(0);
    expect(ci.stderr).not.toMatch(/\[y\/N\]/);
  });

  it("generate asks above the threshold too (its estimate)", async () => {
    const home = newHome();
    const r = await run(["generate", "--prompt", "a long explainer", "--duration", "600"], { home, ...terminal("no\n") });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Start this video generation for 105 credits\?/);
  });

  it("a bad MEDIAGEN_CONFIRM_ABOVE is a usage error naming it", async () => {
    const r = await run(VIDEO, { home: newHome(), ...terminal("", { MEDIAGEN_CONFIRM_ABOVE: "lots" }) });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/MEDIAGEN_CONFIRM_ABOVE must be a number of credits or off/);
  });
});
