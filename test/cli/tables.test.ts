/**
 * Tables never cut an id (issue 11): the cases of the review, on a terminal of a given width. The
 * descriptive columns are left out or wrapped; the id the next command needs is printed whole.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";
import { newHomeWithCatalog } from "../helpers/catalog-pictures.js";
import { visibleLength } from "../../src/cli/output.js";

const tty = (columns: number) => ({ tty: { stdout: true, columns } });
const fits = (out: string, width: number) => {
  for (const l of out.split("\n")) expect(visibleLength(l), l).toBeLessThanOrEqual(width);
};

describe("tables on a narrow terminal", () => {
  /**
   * One home for the four tables (none depends on what another adds), its catalog pictures and French
   * voice previews made once per test process: what is checked is the table, not their drawing.
   */
  let home: string;
  beforeAll(async () => {
    home = await newHomeWithCatalog((v) => v.language === "fr");
  });

  it("asset models keeps every model name whole at 80 columns; CREDITS has a unit and says it is the default-duration price", async () => {
    const all = (await run(["asset", "models", "--json"], { home })).json<{ models: { name: string }[] }>();
    const r = await run(["asset", "models"], { home, ...tty(80) });
    expect(r.exitCode, r.stderr).toBe(0);
    fits(r.stdout, 80);
    expect(r.stdout).not.toContain("…");
    const firstWords = r.stdout
      .split("\n")
      .slice(1)
      .map((l) => l.split(/\s+/)[0]);
    for (const m of all.models) expect(firstWords).toContain(m.name);
    expect(r.stdout).toContain("vidA-3-frames");
    expect(r.stdout.split("\n")[0]).toMatch(/CREDITS/);
    // The price of vidA-3 at its default duration (8 s), with the duration shown.
    expect(r.stdout).toMatch(/vidA-3\s+video\s+.*32 \(8 s\)/);
    expect(r.stderr).toMatch(/default settings.*default duration/);
  });

  it("local spaces list keeps the space id whole at 60 columns (what `local credits add` takes)", async () => {
    await run(["local", "keys", "create", "--plan", "PRO", "--credits", "10", "--name", "a space with a long name"], { home });
    const spaces = (await run(["local", "spaces", "list", "--json"], { home })).json<{ id: string }[]>();
    expect(spaces.length).toBeGreaterThan(0);
    const r = await run(["local", "spaces", "list"], { home, ...tty(60) });
    expect(r.exitCode, r.stderr).toBe(0);
    fits(r.stdout, 60);
    for (const s of spaces) expect(r.stdout).toContain(s.id);
    const add = await run(["local", "credits", "add", r.stdout.split("\n")[1]!.split(/\s+/)[0]!, "1"], { home });
    expect(add.exitCode, add.stderr).toBe(0);
  });

  it("voice resources --language fr keeps name, language and gender and leaves out the preview URL first", async () => {
    const r = await run(["voice", "resources", "--language", "fr"], { home, ...tty(100) });
    expect(r.exitCode, r.stderr).toBe(0);
    fits(r.stdout, 100);
    const head = r.stdout.split("\n")[0]!;
    for (const h of ["ID", "NAME", "LANGUAGE", "GENDER"]) expect(head).toContain(h);
    expect(head).not.toContain("PREVIEW");
    expect(r.stdout).not.toContain("file://");
    // Off a terminal nothing is left out.
    const piped = await run(["voice", "resources", "--language", "fr"], { home });
    expect(piped.stdout.split("\n")[0]).toContain("PREVIEW");
  });

  it("avatar list and voice list keep their ids whole at 40 columns", async () => {
    const looks = await run(["avatar", "list", "--only-public"], { home, ...tty(40) });
    expect(looks.exitCode, looks.stderr).toBe(0);
    const ids = (await run(["avatar", "list", "--only-public", "--json"], { home })).json<{ id: string; avatar_id: string }[]>();
    for (const l of ids) {
      expect(looks.stdout).toContain(l.id);
      expect(looks.stdout).toContain(l.avatar_id);
    }
    const voices = await run(["voice", "list"], { home, ...tty(40) });
    const vids = (await run(["voice", "list", "--json"], { home })).json<{ id: string }[]>();
    for (const v of vids) expect(voices.stdout).toContain(v.id);
    expect(voices.stdout).not.toContain("…");
  });
});
