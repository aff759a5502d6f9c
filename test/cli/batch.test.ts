/**
 * `mediagen batch run|price` on a fresh local instance (a detached worker renders): the issue's
 * done-when.
 * - 12 lines (11 assets, 1 generate+export) under a rate limit of 8 per window with --parallel 8:
 *   no 429 ever reaches the batch, every output is on disk, the manifest is complete, and what
 *   `batch price` said is what the ledger debited. The limiter is the instance's own (fixed windows
 *   counted in SQLite), set to 8 requests per 1 s window so the test does not take minutes: the
 *   same code path as 8 a minute, sixty times faster. The limit binds: the batch needs more than
 *   three windows (each asset line takes at least a start and a poll, the video line two of each:
 *   26 requests at the least), and --parallel 8 alone would send 8 at once.
 * - The built binary SIGKILLed half-way, then run again (in process): every line paid exactly once (ledger).
 * - SIGKILLed in the window between a start's answer and the record of its job id: the re-run
 *   adopts the job instead of paying again.
 * - --max-credits skips lines that would go over and goes on with cheaper ones (exit 5).
 * - A CSV through --as: values with quotes, commas and shell syntax reach the request unchanged.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { killInStartWindow, localKey, newHome, run, runBin, startBin, startInProcess } from "./helpers.js";

/** The rate limit under test: small enough that 12 lines need more than three windows (of whole seconds: X-RateLimit-Reset is in seconds). */
const LIMIT = 8;
const FAST = { MEDIAGEN_LOCAL_RATE_LIMIT: String(LIMIT), MEDIAGEN_LOCAL_RATE_WINDOW_MS: "1000" };
/** Where the rate limit is not the subject: one that is never met. */
const ASSETS = 11;
const GENERATES = 1;
const LINES = ASSETS + GENERATES;
const UNLIMITED = { MEDIAGEN_LOCAL_RATE_LIMIT: "100000", MEDIAGEN_LOCAL_RATE_WINDOW_MS: "1000" };

interface LedgerRow {
  kind: string;
  amount: number;
  ref: string | null;
}

async function defaultSpace(home: string): Promise<string> {
  const r = await run(["local", "spaces", "list", "--json"], { home });
  return r.json<{ id: string; is_default: boolean }[]>().find((s) => s.is_default)!.id;
}

/** The ledger of a space (default: the home's default space). */
async function ledger(home: string, space?: string): Promise<LedgerRow[]> {
  const r = await run(["local", "ledger", space ?? (await defaultSpace(home)), "--json"], { home });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.json<LedgerRow[]>();
}

/** Credits the space paid: debits less refunds. */
const paid = (rows: LedgerRow[]) => Math.round(rows.reduce((n, r) => n + (r.kind === "debit" ? -r.amount : r.kind === "refund" ? -r.amount : 0), 0) * 1000) / 1000;

interface ManifestEvent {
  ev: string;
  line?: number;
  step?: string;
  ids?: string[];
  path?: string;
  adopted?: boolean;
}

function manifestEvents(file: string): ManifestEvent[] {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as ManifestEvent];
      } catch {
        return [];
      }
    });
}

function assetLine(i: number): string {
  return JSON.stringify({ kind: "asset", type: "image", model: "imgA-4-fast", prompt: `product shot ${i}` });
}

/** A video line: the smallest standard frame (square: a custom one would add the export's surcharge), as the batch and not the render is under test. */
function generateLine(i: number): string {
  return JSON.stringify({
    kind: "generate",
    script: `Clip ${i}. Short and sweet.`,
    voice_id: "vc_emma",
    avatar_id: "lk_zoe_podcast",
    format: "square",
    export: {},
  });
}

function writeBatch(dir: string, assets: number, generates: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= assets + generates; i++) {
    // The video lines spread through the file, the first of them second (the longest job starts early).
    const g =
      generates > 0 &&
      i % Math.floor((assets + generates) / generates) === 2 % Math.floor((assets + generates) / generates) &&
      lines.filter((l) => l.includes('"generate"')).length < generates;
    lines.push(g ? generateLine(i) : assetLine(i));
  }
  const file = path.join(dir, "batch.jsonl");
  fs.writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

function ndjson(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe(`batch run: ${LINES} lines under a rate limit of ${LIMIT} per window, --parallel 8`, () => {
  it("never meets a 429, saves every output, completes the manifest, and charges what batch price said", async () => {
    const home = newHome();
    const file = writeBatch(home, ASSETS, GENERATES);
    const out = path.join(home, "out");

    const price = await run(["batch", "price", file, "--json"], { home, env: FAST });
    expect(price.exitCode, price.stderr).toBe(0);
    const quoted = price.json<{ total: number; unknown: number[]; lines: { kind: string; credits: number }[] }>();
    expect(quoted.unknown).toEqual([]);
    expect(quoted.lines).toHaveLength(LINES);
    expect(quoted.total).toBe(Math.round((ASSETS * 0.1 + GENERATES * 5) * 1000) / 1000);
    // Pricing is free: nothing was debited.
    expect(paid(await ledger(home))).toBe(0);

    const r = await run(["batch", "run", file, "--out", out, "--parallel", "8", "--json"], { home, env: FAST, timeoutMs: 90_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/rate limited/i);
    const events = ndjson(r.stdout);
    const summary = events.find((e) => e.event === "summary")!;
    expect(summary).toMatchObject({ lines: LINES, done: LINES, failed: 0, unknown: 0, rate_limited: 0, interrupted: false });
    // The limit was binding: the batch needed several windows.
    expect(summary.requests as number).toBeGreaterThan(LIMIT * 3);

    const done = events.filter((e) => e.event === "line");
    expect(done).toHaveLength(LINES);
    expect(new Set(done.map((e) => e.line))).toEqual(new Set(Array.from({ length: LINES }, (_, i) => i + 1)));
    const files = done.flatMap((e) => e.paths as string[]);
    expect(files).toHaveLength(LINES);
    for (const f of files) expect(fs.statSync(f).size).toBeGreaterThan(0);
    expect(files.filter((f) => f.endsWith(".mp4"))).toHaveLength(GENERATES);
    expect(files.filter((f) => f.endsWith(".png"))).toHaveLength(ASSETS);
    for (const e of done) expect(path.basename((e.paths as string[])[0]!)).toMatch(new RegExp(`^${e.line}-${e.kind}-`));

    // The manifest: every line started once per step, saved, done.
    const manifest = path.join(out, "batch.jsonl.manifest.jsonl");
    const evs = manifestEvents(manifest);
    for (let line = 1; line <= LINES; line++) {
      const mine = evs.filter((e) => e.line === line);
      expect(mine.filter((e) => e.ev === "done")).toHaveLength(1);
      expect(mine.filter((e) => e.ev === "saved")).toHaveLength(1);
      const steps = mine.filter((e) => e.ev === "started").map((e) => e.step);
      expect(steps.sort()).toEqual(mine.some((e) => e.step === "export") ? ["export", "start"] : ["start"]);
    }

    // What the price said is what the ledger took.
    expect(paid(await ledger(home))).toBe(quoted.total);
    expect(summary.credits).toBe(quoted.total);

    // Run again: nothing is sent, nothing is paid.
    const again = await run(["batch", "run", file, "--out", out, "--json"], { home, env: FAST });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(ndjson(again.stdout).find((e) => e.event === "summary")).toMatchObject({ done: LINES, requests: 0 });
    expect(paid(await ledger(home))).toBe(quoted.total);
  });
});

/** One instance for several tests: each works in a space of its own (its own key) and a directory of its own. */
function spaces(): () => Promise<{ home: string; dir: string; env: Record<string, string>; space: string }> {
  let shared: string | undefined;
  return async () => {
    shared ??= newHome();
    const { api_key, space_id } = await localKey("PRO", 100, shared);
    return { home: shared, dir: fs.mkdtempSync(path.join(shared, "t-")), env: { MEDIAGEN_API_KEY: api_key }, space: space_id };
  };
}

describe("batch run survives SIGKILL", () => {
  const ownSpace = spaces();

  it("killed half-way (the built binary), then run again: every line is paid exactly once", async () => {
    const { home, dir, env, space } = await ownSpace();
    const file = writeBatch(dir, 7, 1);
    const out = path.join(dir, "out");
    const manifest = path.join(out, "batch.jsonl.manifest.jsonl");
    const quoted = (await run(["batch", "price", file, "--json"], { home, env })).json<{ total: number }>().total;

    const child = startBin(["batch", "run", file, "--out", out, "--parallel", "4"], { home, env: { ...env, ...UNLIMITED }, timeoutMs: 60_000 });
    // Half the lines started: kill it where it stands.
    for (let i = 0; i < 600; i++) {
      const started = fs.existsSync(manifest) ? manifestEvents(manifest).filter((e) => e.ev === "started" && e.step === "start").length : 0;
      if (started >= 4) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill("SIGKILL");
    const killed = await child.result;
    expect(killed.signal).toBe("SIGKILL");
    const before = manifestEvents(manifest);
    expect(before.filter((e) => e.ev === "done").length).toBeLessThan(8);

    // The re-run in process: the killed process is the subject, not this one.
    const again = await run(["batch", "run", file, "--out", out, "--parallel", "4", "--json"], { home, env: { ...env, ...UNLIMITED }, timeoutMs: 60_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(ndjson(again.stdout).find((e) => e.event === "summary")).toMatchObject({ lines: 8, done: 8 });

    // The ledger: one debit per job the manifest holds, none twice, none unaccounted for.
    const rows = await ledger(home, space);
    const debits = rows.filter((r) => r.kind === "debit");
    const refs = debits.map((r) => r.ref);
    expect(new Set(refs).size).toBe(refs.length);
    const evs = manifestEvents(manifest);
    const jobIds = evs.filter((e) => e.ev === "started").flatMap((e) => e.ids ?? []);
    expect(new Set(jobIds).size).toBe(jobIds.length);
    const paidIds = new Set(refs);
    for (const id of jobIds.filter((x) => !x.startsWith("exp_"))) expect(paidIds.has(id)).toBe(true);
    for (const ref of refs) expect(jobIds).toContain(ref);
    // Each line started once per step, across both runs.
    for (let line = 1; line <= 8; line++) {
      const starts = evs.filter((e) => e.ev === "started" && e.line === line && e.step === "start");
      expect(starts, `line ${line}`).toHaveLength(1);
    }
    expect(paid(rows)).toBe(quoted);
    for (const f of evs.filter((e) => e.ev === "saved").map((e) => e.path!)) expect(fs.existsSync(f)).toBe(true);
  });

  it("killed between a start's answer and the record of its job id: the re-run finds the job and does not pay again", async () => {
    const { home, dir, env, space } = await ownSpace();
    const file = writeBatch(dir, 5, 0);
    const out = path.join(dir, "out");
    const manifest = path.join(out, "batch.jsonl.manifest.jsonl");

    const crashed = await runBin(["batch", "run", file, "--out", out, "--parallel", "1"], {
      home,
      env: { ...env, ...UNLIMITED, ...killInStartWindow(3) },
      timeoutMs: 60_000,
    });
    expect(crashed.signal).toBe("SIGKILL");
    const line3 = manifestEvents(manifest).filter((e) => e.line === 3);
    expect(line3.map((e) => e.ev)).toEqual(["intent"]);
    // The start landed and was paid for: three debits so far.
    expect((await ledger(home, space)).filter((r) => r.kind === "debit")).toHaveLength(3);

    const again = await run(["batch", "run", file, "--out", out, "--json"], { home, env: { ...env, ...UNLIMITED }, timeoutMs: 60_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    const adopted = manifestEvents(manifest).find((e) => e.line === 3 && e.ev === "started")!;
    expect(adopted.adopted).toBe(true);
    const debits = (await ledger(home, space)).filter((r) => r.kind === "debit");
    expect(debits).toHaveLength(5);
    expect(debits.map((d) => d.ref)).toContain(adopted.ids![0]);
  });
});

describe("batch budget and input", () => {
  const ownSpace = spaces();

  it("--max-credits skips a line that would go over and goes on with cheaper ones (exit 5); price and charge agree", async () => {
    const { home, dir, env, space } = await ownSpace();
    const file = path.join(dir, "mixed.jsonl");
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ kind: "asset", type: "image", model: "imgA-4-fast", prompt: "cheap one" }),
        JSON.stringify({ kind: "asset", type: "image", model: "imgA-4", prompt: "dear one", generation_count: 4 }),
        JSON.stringify({ kind: "asset", type: "image", model: "imgA-4-fast", prompt: "cheap two" }),
      ].join("\n"),
    );
    const out = path.join(dir, "out");
    const r = await run(["batch", "run", file, "--out", out, "--max-credits", "1", "--parallel", "1", "--json"], { home, env });
    expect(r.exitCode, r.stderr).toBe(5);
    const lines = ndjson(r.stdout).filter((e) => e.event === "line");
    expect(lines.map((e) => [e.line, e.status])).toEqual([
      [1, "done"],
      [2, "skipped_budget"],
      [3, "done"],
    ]);
    expect(lines[1]).toMatchObject({ price: 4, code: "over_max_credits" });
    expect(paid(await ledger(home, space))).toBe(0.2);
  });

  it("a CSV through --as: quotes, commas and shell syntax in a value reach the request as written", async () => {
    const { home, dir, env } = await ownSpace();
    const csv = path.join(dir, "products.csv");
    const tricky = `it's a "fox", $(touch ${path.join(dir, "pwned")}); \`id\``;
    fs.writeFileSync(csv, `sku,prompt\nA1,plain fox\nB2,"${tricky.replace(/"/g, '""')}"\n`);
    const out = path.join(dir, "out");
    const r = await run(["batch", "run", csv, "--as", "asset --type image --model imgA-4-fast --prompt {prompt}", "--out", out, "--name", "{sku}-{id}", "--json"], {
      home,
      env,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = ndjson(r.stdout).filter((e) => e.event === "line");
    expect(lines).toHaveLength(2);
    expect(fs.existsSync(path.join(dir, "pwned"))).toBe(false);
    const second = lines.find((e) => e.line === 2)!;
    expect(path.basename((second.paths as string[])[0]!)).toMatch(/^B2-[0-9a-f]{24}\.png$/);
    const status = await run(["asset", "status", (second.ids as string[])[0]!, "--json"], { home, env });
    expect(status.json<{ generation_params: { prompt: string } }>().generation_params.prompt).toBe(tricky);
    // The batch's jobs are in the history too, with what became of them.
    const history = (await run(["history", "--json"], { home, env })).json<{ id: string; kind: string; status: string; saved: string | null }[]>();
    expect(history.find((h) => h.id === (second.ids as string[])[0])).toMatchObject({ kind: "asset", status: "completed", saved: (second.paths as string[])[0] });
  });

  it("on a terminal, draws a progress bar on stderr and ends with a summary; Ctrl-C stops it with 130 and the re-run finishes", async () => {
    const { home, dir, env, space } = await ownSpace();
    const file = writeBatch(dir, 6, 0);
    const out = path.join(dir, "out");
    const ac = new AbortController();
    const started = startInProcess(["batch", "run", file, "--out", out, "--parallel", "2"], {
      home,
      env,
      tty: { stderr: true },
      interrupt: ac.signal,
      timeoutMs: 60_000,
    });
    const manifest = path.join(out, "batch.jsonl.manifest.jsonl");
    for (let i = 0; i < 400; i++) {
      if (fs.existsSync(manifest) && manifestEvents(manifest).some((e) => e.ev === "done")) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    ac.abort();
    const r = await started.result;
    expect(r.exitCode, r.stderr).toBe(130);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the progress line is redrawn with CR and ESC[K.
    expect(r.stderr).toMatch(/\r\x1b\[K\[[#.]{24}\] \d+\/6 done · \d+ failed · \d+ running · [\d.]+ credits?/);
    expect(r.stderr).toMatch(/Batch: \d\/6 done/);
    const again = await run(["batch", "run", file, "--out", out, "--json"], { home, env, timeoutMs: 60_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(ndjson(again.stdout).find((e) => e.event === "summary")).toMatchObject({ done: 6 });
    const debits = (await ledger(home, space)).filter((x) => x.kind === "debit");
    expect(new Set(debits.map((d) => d.ref)).size).toBe(6);
    expect(debits).toHaveLength(6);
  });

  it("refuses a bad file before anything starts, naming the line (exit 2)", async () => {
    const { home, dir, env } = await ownSpace();
    const file = path.join(dir, "bad.jsonl");
    fs.writeFileSync(file, `${assetLine(1)}\n{"kind":"teleport"}\n`);
    const r = await run(["batch", "run", file, "--out", path.join(dir, "out")], { home, env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl:2: "kind" must be one of asset, avatar, generate, export, script, duplicate/);
    expect(fs.existsSync(path.join(dir, "out", "bad.jsonl.manifest.jsonl"))).toBe(false);
    const csv = path.join(dir, "x.csv");
    fs.writeFileSync(csv, "a\n1\n");
    const c = await run(["batch", "price", csv, "--as", "asset --model {b}"], { home, env });
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toMatch(/\{b\}, which is not a column/);
  });
});
