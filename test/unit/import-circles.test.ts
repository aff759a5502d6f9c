/**
 * No import circle over 10 files in src/, counting type-only imports too (the layer rules' own
 * `no-circular` rule counts the imports that load code; a circle through types still ties the
 * modules in it together for a reader and for the type checker). Measured on the real tree with
 * dependency-cruiser's JSON output: the strongly connected parts of the import graph.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DEPCRUISE = path.join(ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const MAX_CIRCLE = 10;

interface Cruise {
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

/** The strongly connected parts of the graph with more than one file (Tarjan), largest first. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    for (;;) {
      const w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
      if (w === v) break;
    }
    if (part.length > 1) found.push(part.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => b.length - a.length);
}

it("finds a circle in a planted graph, and only the circle", () => {
  const g = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a", "d"]],
    ["d", []],
  ]);
  expect(circles(g)).toEqual([["a", "b", "c"]]);
});

it(`src/ has no import circle over ${MAX_CIRCLE} files, type-only imports included`, { timeout: 120_000 }, async () => {
  const json = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [DEPCRUISE, "src", "--config", ".dependency-cruiser.cjs", "--output-type", "json"],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
      // depcruise exits non-zero when a rule fails; the layer check reports that, this test the circles.
      (err, stdout) => (stdout ? resolve(stdout) : reject(err ?? new Error("no output from dependency-cruiser"))),
    ),
  );
  const cruise = JSON.parse(json) as Cruise;
  const graph = new Map<string, string[]>();
  for (const m of cruise.modules) {
    if (!m.source.startsWith("src/")) continue;
    graph.set(
      m.source,
      m.dependencies.map((d) => d.resolved).filter((r) => r.startsWith("src/")),
    );
  }
  expect(graph.size).toBeGreaterThan(300);
  const largest = circles(graph)[0] ?? [];
  expect(largest.length, `the largest import circle:\n${largest.join("\n")}`).toBeLessThanOrEqual(MAX_CIRCLE);
});
