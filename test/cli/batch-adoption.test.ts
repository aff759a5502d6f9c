/**
 * A re-run batch adopts a start only when it is the line's own request, all of it: a line announced
 * ("intent") whose start never landed must not take another client's asset that happens to share
 * the model, the count and the time window. The manifest here is the one a batch leaves when it is
 * killed after announcing line 1 and before its start landed; meanwhile a foreign client starts an
 * asset with the same model and count and a different prompt.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseJsonl } from "../../src/cli/batch/input.js";
import { localKey, newHome, run } from "./helpers.js";

const LINE = { kind: "asset", type: "image", model: "imgA-4-fast", prompt: "BATCH-CAT" };

function crashedBeforeLanding(home: string, file: string, out: string, at: string): string {
  const [line] = parseJsonl(JSON.stringify(LINE) + "\n", file);
  fs.mkdirSync(out, { recursive: true });
  const manifest = path.join(out, `${path.basename(file)}.manifest.jsonl`);
  fs.writeFileSync(
    manifest,
    [
      JSON.stringify({ ev: "batch", v: 1, target: "local", base_url: `local:${home}`, input: file, at }),
      JSON.stringify({ ev: "intent", line: 1, hash: line!.hash, step: "start", at }),
    ].join("\n") + "\n",
  );
  return manifest;
}

/** One instance for both tests: the second works in a space of its own (its own key), where the first's assets are not. */
const home = newHome();

describe("batch re-run after a crash in the start window", () => {
  it("never adopts a foreign client's asset of the same model, count and time with another prompt", async () => {
    const file = path.join(home, "b.jsonl");
    fs.writeFileSync(file, JSON.stringify(LINE) + "\n");
    const out = path.join(home, "out");
    const manifest = crashedBeforeLanding(home, file, out, new Date(Date.now() - 1000).toISOString());

    const foreign = await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "FOREIGN-DOG", "--json"], { home });
    expect(foreign.exitCode, foreign.stderr).toBe(0);
    const foreignId = foreign.json<{ asset_ids: string[] }>().asset_ids[0]!;

    const again = await run(["batch", "run", file, "--out", out, "--json"], { home, timeoutMs: 60_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    const events = fs
      .readFileSync(manifest, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { ev: string; line?: number; ids?: string[]; adopted?: boolean });
    const started = events.find((e) => e.ev === "started" && e.line === 1)!;
    expect(started.ids).not.toContain(foreignId);
    expect(started.adopted).toBeUndefined();
    const status = await run(["asset", "status", started.ids![0]!, "--json"], { home });
    expect(status.json<{ generation_params: { prompt: string } }>().generation_params.prompt).toBe("BATCH-CAT");
  });

  it("adopts its own start when it landed (the same request, whatever the key order)", async () => {
    const env = { MEDIAGEN_API_KEY: (await localKey("PRO", 100, home)).api_key };
    const file = path.join(home, "b2.jsonl");
    fs.writeFileSync(file, JSON.stringify(LINE) + "\n");
    const out = path.join(home, "out2");
    const manifest = crashedBeforeLanding(home, file, out, new Date(Date.now() - 1000).toISOString());
    // The line's own request, sent by the crashed run (other key order), then a foreign one.
    const own = await run(["asset", "start", "--prompt", "BATCH-CAT", "--model", "imgA-4-fast", "--type", "image", "--json"], { home, env });
    const ownId = own.json<{ asset_ids: string[] }>().asset_ids[0]!;
    await run(["asset", "start", "--type", "image", "--model", "imgA-4-fast", "--prompt", "FOREIGN-DOG", "--json"], { home, env });

    const again = await run(["batch", "run", file, "--out", out, "--json"], { home, env, timeoutMs: 60_000 });
    expect(again.exitCode, again.stderr).toBe(0);
    const started = fs
      .readFileSync(manifest, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { ev: string; line?: number; ids?: string[]; adopted?: boolean })
      .find((e) => e.ev === "started" && e.line === 1)!;
    expect(started).toMatchObject({ ids: [ownId], adopted: true });
  });
});
