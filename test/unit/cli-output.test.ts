import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { cell, defaultQuietLines, fitLine, keyValues, table, visibleLength, widthOf, wrapCell } from "../../src/cli/output.js";
import { colorEnabled, createIO, terminalWidth } from "../../src/cli/io.js";
import { resumeCommand, shellQuote, withGlobalFlags } from "../../src/cli/resume.js";
import { describeError, exitCodeForStatus, renderError } from "../../src/cli/errors.js";
import { parseCredits, parseDuration, formatDuration } from "../../src/cli/parse.js";
import { CliError, EXIT } from "../../src/cli/types.js";
import { ApiError, NetworkError } from "../../src/engine/errors.js";
import { LocalAdminError } from "../../src/local/instance.js";
import { ConfigError } from "../../src/config/profiles.js";

describe("table", () => {
  const rows = [
    { id: "65f0c2a1b3e4d5f6a7b8c9d0", name: "A very long folder name that goes on and on", n: 5 },
    { id: "65f0c2a1b3e4d5f6a7b8c9d1", name: "short", n: 1234 },
  ];
  const cols = [
    { header: "id", get: (r: (typeof rows)[number]) => r.id },
    { header: "name", get: (r: (typeof rows)[number]) => r.name },
    { header: "n", get: (r: (typeof rows)[number]) => r.n, align: "right" as const },
  ];

  it("keeps natural widths when they fit", () => {
    const lines = table(rows, cols);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+N$/);
    expect(lines[1]).toContain(rows[0]!.name);
    expect(lines[2]!.endsWith("1234")).toBe(true);
  });

  it.each([80, 60, 40])("fits a %i-column terminal: ids whole, the descriptive column wrapped, nothing cut with …", (width) => {
    const lines = table(rows, cols, width);
    for (const l of lines) expect(visibleLength(l)).toBeLessThanOrEqual(width);
    const text = lines.join("\n");
    for (const r of rows) expect(text).toContain(r.id);
    expect(text).not.toContain("…");
    // Every word of the long name is still there, on the lines of its row.
    for (const w of rows[0]!.name.split(" ")) expect(text).toContain(w);
  });

  it("lines up columns after CJK and emoji names (two columns each on a terminal), and wraps them by their width", () => {
    type R = { name: string; id: string };
    const r: R[] = [
      { name: "東京の夜景", id: "vc_1" },
      { name: "🎬 trailer 🎥", id: "vc_2" },
      { name: "plain", id: "vc_3" },
    ];
    const c = [
      { header: "name", get: (x: R) => x.name },
      { header: "id", get: (x: R) => x.id, id: true },
    ];
    const lines = table(r, c);
    // The id column starts at the same terminal column on every line.
    const starts = lines.map((l) => visibleLength(l.slice(0, l.search(/(ID|vc_\d)$/))));
    expect(new Set(starts).size, lines.join("\n")).toBe(1);
    expect(visibleLength("東京の夜景")).toBe(10);
    // Plain ASCII (counted without loading string-width) and colour codes; the same string-width gives.
    expect(visibleLength("folder 12")).toBe(9);
    expect(visibleLength("\u001b[1mname\u001b[22m \u001b[31m东\u001b[39m")).toBe(7);
    expect(visibleLength("e\u0301 🎬\t")).toBe(4);
    expect(visibleLength("")).toBe(0);
    // Wrapped to 14 columns, no line of the CJK name is wider than its column.
    const narrow = table([{ name: "東京の夜景と大阪の朝焼け", id: "vc_9" }], c, 20);
    for (const l of narrow) expect(visibleLength(l)).toBeLessThanOrEqual(20);
    expect(narrow.join("")).toContain("vc_9");
    expect(wrapCell("東京の夜景", 4)).toEqual(["東京", "の夜", "景"]);
    // A live line (spinner) is cut by its width on the terminal, not its length.
    expect(fitLine("東京の夜景", 5)).toBe("東京…");
  });

  it("never cuts an id: on a terminal too narrow for the ids, the line is longer instead", () => {
    const lines = table(rows, cols, 10);
    expect(lines.join("\n")).toContain(rows[0]!.id);
    expect(lines.join("\n")).not.toContain("…");
  });

  it("leaves out optional columns first (the last first), then wraps; a `whole` column is never wrapped", () => {
    type R = { id: string; text: string; url: string; extra: string };
    const r: R[] = [{ id: "vc_1", text: "one two three four five six seven", url: "https://example.com/a/very/long/preview.wav", extra: "x" }];
    const c = [
      { header: "id", get: (x: R) => x.id, id: true },
      { header: "text", get: (x: R) => x.text },
      { header: "extra", get: (x: R) => x.extra, optional: true },
      { header: "url", get: (x: R) => x.url, optional: true, whole: true },
    ];
    const wide = table(r, c);
    expect(wide[0]).toMatch(/^ID\s+TEXT\s+EXTRA\s+URL$/);
    const narrow = table(r, c, 50);
    expect(narrow[0]).toMatch(/^ID\s+TEXT\s+EXTRA$/);
    expect(narrow.join("\n")).not.toContain("https");
    const narrower = table(r, c, 20);
    expect(narrower[0]).toMatch(/^ID\s+TEXT$/);
    expect(narrower.length).toBeGreaterThan(2);
    for (const l of narrower) expect(visibleLength(l)).toBeLessThanOrEqual(20);
  });

  it("without a column marked id, the first column is the id", () => {
    const lines = table(
      rows,
      cols.map((c) => ({ ...c })),
      20,
    );
    expect(lines.join("\n")).toContain(rows[1]!.id);
  });
});

describe("cell / keyValues / quiet lines", () => {
  it.each([
    [null, "-"],
    [undefined, "-"],
    [true, "yes"],
    [false, "no"],
    [["a", "b"], "a, b"],
    [[], "-"],
    [{ a: 1 }, '{"a":1}'],
    ["two\nlines", "two lines"],
    [1.5, "1.5"],
  ])("cell(%j) = %s", (v, s) => expect(cell(v)).toBe(s));

  it("aligns labels", () => {
    expect(
      keyValues([
        ["id", "x"],
        ["created", null],
      ]),
    ).toEqual(["id       x", "created  -"]);
  });

  it("quiet prints ids of records and lists", () => {
    expect(defaultQuietLines({ id: "f1", name: "x" })).toEqual(["f1"]);
    expect(defaultQuietLines({ job_id: "j1", status: "pending" })).toEqual(["j1"]);
    expect(defaultQuietLines([{ id: "a" }, { asset_id: "b" }])).toEqual(["a", "b"]);
    expect(defaultQuietLines({ ok: true })).toEqual([]);
  });
});

describe("colour and prompting policy", () => {
  const cases: Array<[string, boolean, Record<string, string>, boolean, boolean]> = [
    ["TTY", true, {}, true, true],
    ["not a TTY", false, {}, true, false],
    ["NO_COLOR", true, { NO_COLOR: "1" }, true, false],
    ["empty NO_COLOR is ignored", true, { NO_COLOR: "" }, true, true],
    ["TERM=dumb", true, { TERM: "dumb" }, true, false],
    ["--no-color", true, {}, false, false],
    ["FORCE_COLOR off a TTY", false, { FORCE_COLOR: "1" }, true, true],
    ["NO_COLOR beats FORCE_COLOR", false, { FORCE_COLOR: "1", NO_COLOR: "1" }, true, false],
    ["--no-color beats FORCE_COLOR", true, { FORCE_COLOR: "1" }, false, false],
  ];
  it.each(cases)("%s", (_n, tty, env, flag, expected) => expect(colorEnabled(tty, env, flag)).toBe(expected));

  const tty = () => Object.assign(new PassThrough(), { isTTY: true });
  it.each([
    ["all TTYs", {}, true, true],
    ["CI set", { CI: "1" }, true, false],
    ["CI=false", { CI: "false" }, true, true],
    ["--no-input", {}, false, false],
  ] as Array<[string, Record<string, string>, boolean, boolean]>)("canPrompt: %s", (_n, env, input, expected) => {
    const io = createIO({ stdout: tty(), stderr: tty(), stdin: tty() }, env, { quiet: false, color: true, input });
    expect(io.canPrompt).toBe(expected);
  });

  it("never prompts when stdin is not a TTY", () => {
    const io = createIO({ stdout: tty(), stderr: tty(), stdin: new PassThrough() }, {}, { quiet: false, color: true, input: true });
    expect(io.canPrompt).toBe(false);
  });

  it.each([
    ["piped, COLUMNS exported: never cut", false, 120, { COLUMNS: "40" }, Infinity],
    ["piped: never cut", false, undefined, {}, Infinity],
    ["a terminal: its columns", true, 120, { COLUMNS: "40" }, 120],
    ["a 0-column pty: COLUMNS", true, 0, { COLUMNS: "100" }, 100],
    ["a 0-column pty, no COLUMNS: 80", true, 0, {}, 80],
    ["a terminal without columns: COLUMNS", true, undefined, { COLUMNS: "90" }, 90],
    ["a bad COLUMNS: 80", true, undefined, { COLUMNS: "wide" }, 80],
  ] as Array<[string, boolean, number | undefined, Record<string, string>, number]>)("table width: %s", (_n, isTTY, columns, env, expected) => {
    const stdout = Object.assign(new PassThrough(), { isTTY, columns });
    const io = createIO({ stdout, stderr: new PassThrough(), stdin: new PassThrough() }, env, { quiet: false, color: true, input: true });
    expect(io.width).toBe(expected);
    // widthOf without the frame's width (a module's own IO) agrees on a 0-column terminal.
    if (isTTY && columns === 0) expect(widthOf({ isStdoutTTY: true, stdout })).toBe(80);
  });

  it("terminalWidth treats 0 and negative columns as unknown", () => {
    expect(terminalWidth(0, {})).toBe(80);
    expect(terminalWidth(-1, { COLUMNS: "0" })).toBe(80);
    expect(terminalWidth(33, {})).toBe(33);
  });

  it("--quiet silences info but not warn", () => {
    const err = new PassThrough();
    const io = createIO({ stdout: new PassThrough(), stderr: err, stdin: new PassThrough() }, {}, { quiet: true, color: true, input: true });
    io.info("hint");
    io.warn("matters");
    expect(err.read()?.toString()).toBe("matters\n");
  });
});

describe("error → exit code", () => {
  const cases: Array<[string, unknown, number]> = [
    ["400", ApiError.of("missing_field", "name is required", { field: "name" }), EXIT.usage],
    ["401", ApiError.of("invalid_api_key", "Invalid API key"), EXIT.auth],
    ["403 plan", ApiError.of("plan_required", "Pro plan required"), EXIT.auth],
    ["404", ApiError.of("asset_not_found", "Asset not found"), EXIT.notFound],
    ["402", ApiError.of("insufficient_credits", "Not enough credits"), EXIT.credits],
    ["429", ApiError.of("rate_limit_exceeded", "Rate limit exceeded"), EXIT.rateLimited],
    ["500", ApiError.of("internal_error", "boom"), EXIT.error],
    ["503", new ApiError(503, { error: "down" }), EXIT.error],
    ["network", new NetworkError("ECONNREFUSED"), EXIT.error],
    ["CliError", new CliError("x", EXIT.timeout, "timeout"), EXIT.timeout],
    ["LocalAdminError not_found", new LocalAdminError("not_found", "no such space"), EXIT.notFound],
    ["LocalAdminError invalid", new LocalAdminError("invalid", "bad plan"), EXIT.usage],
    ["ConfigError", new ConfigError("bad target"), EXIT.usage],
    ["commander usage", Object.assign(new Error("error: unknown option '--x'"), { code: "commander.unknownOption", exitCode: 1 }), EXIT.usage],
    ["commander help", Object.assign(new Error("(outputHelp)"), { code: "commander.helpDisplayed", exitCode: 0 }), EXIT.ok],
    ["group without subcommand", Object.assign(new Error("(outputHelp)"), { code: "commander.help", exitCode: 1 }), EXIT.usage],
    ["Ctrl-C at a prompt", Object.assign(new Error("User force closed the prompt with SIGINT"), { name: "ExitPromptError" }), EXIT.interrupted],
    ["unknown", new TypeError("cannot read x of undefined"), EXIT.error],
    ["thrown string", "weird", EXIT.error],
  ];
  it.each(cases)("%s", (_n, err, code) => expect(describeError(err).exitCode).toBe(code));

  it.each([
    [400, 2],
    [401, 3],
    [403, 3],
    [404, 4],
    [402, 5],
    [429, 6],
    [409, 1],
    [500, 1],
  ])("status %i → %i", (status, code) => expect(exitCodeForStatus(status)).toBe(code));

  it("a group without its subcommand reports a message, not commander's placeholder", () => {
    const info = describeError(Object.assign(new Error("(outputHelp)"), { code: "commander.help", exitCode: 1 }));
    expect(info.message).not.toContain("outputHelp");
    expect(info.message).toMatch(/subcommand/);
  });

  function render(err: unknown, opts: { json: boolean; debug: boolean }) {
    const stderr = new PassThrough();
    renderError(err, { stderr, quiet: false }, opts);
    return (stderr.read()?.toString() ?? "") as string;
  }

  it("renders an ApiError with code and field, plus one JSON line with --json", () => {
    const out = render(ApiError.of("missing_field", "name is required", { field: "name" }), { json: true, debug: false });
    const lines = out.trim().split("\n");
    expect(lines[0]).toBe("Error: name is required (code missing_field, field name)");
    expect(JSON.parse(lines.at(-1)!)).toEqual({ error: { status: 400, code: "missing_field", field: "name", message: "name is required" } });
  });

  it("never shows a stack without --debug, and never a key even with it", () => {
    const key = "mg_live_" + "ef".repeat(32);
    const err = new Error(`failed with ${key}\n    at somewhere (file.js:1:1)`);
    const plain = render(err, { json: false, debug: false });
    expect(plain.trim().split("\n")).toHaveLength(1);
    expect(plain).not.toContain("at somewhere");
    const debug = render(err, { json: false, debug: true });
    expect(debug).toContain("[debug]");
    expect(debug).not.toContain(key);
    expect(plain).not.toContain(key);
  });
});

describe("flag value parsers", () => {
  it.each([
    ["90", 90_000],
    ["90s", 90_000],
    ["20m", 1_200_000],
    ["1h30m", 5_400_000],
    ["1500ms", 1500],
    ["0.5", 500],
  ])("parseDuration(%s) = %i", (s, ms) => expect(parseDuration(s, "--timeout")).toBe(ms));
  it.each(["", "abc", "5x", "-1", "1m junk"])("parseDuration rejects %j with exit 2", (s) => {
    expect(() => parseDuration(s, "--timeout")).toThrow(expect.objectContaining({ exitCode: EXIT.usage }));
  });
  it.each([
    [0, "0s"],
    [1_200_000, "20m"],
    [65_000, "1m5s"],
    [3_600_000, "1h"],
  ])("formatDuration(%i) = %s", (ms, s) => expect(formatDuration(ms)).toBe(s));
  it("parseCredits accepts up to 3 decimals", () => {
    expect(parseCredits("12.5", "c")).toBe(12.5);
    expect(parseCredits("0.001", "c")).toBe(0.001);
    for (const bad of ["-1", "1.2345", "abc", "1e3", ""]) expect(() => parseCredits(bad, "c")).toThrow(CliError);
  });
});

describe("table: optional columns", () => {
  const rows = [{ id: "lk_0123456789abcdef", name: "Maya in the kitchen", tags: "warm, narration, calm" }];
  const cols = [
    { header: "id", get: (r: (typeof rows)[number]) => r.id },
    { header: "name", get: (r: (typeof rows)[number]) => r.name, optional: true },
    { header: "tags", get: (r: (typeof rows)[number]) => r.tags, optional: true },
  ];

  it("keeps every column when the table fits", () => {
    expect(table(rows, cols, 200)[1]).toBe("lk_0123456789abcdef  Maya in the kitchen  warm, narration, calm");
  });

  it("leaves out optional columns, in order, rather than cutting the id", () => {
    const lines = table(rows, cols, 45);
    expect(lines[0]).toBe("ID                   NAME");
    expect(lines[1]).toBe("lk_0123456789abcdef  Maya in the kitchen");
    expect(table(rows, cols, 20)[1]).toBe("lk_0123456789abcdef");
  });
});

describe("resume commands", () => {
  it.each([
    ["abc123", "abc123"],
    ["--watch", "--watch"],
    ["/tmp/out", "/tmp/out"],
    ["https://x.example/api/public/v1", "https://x.example/api/public/v1"],
    ["my files", "'my files'"],
    ["it's", "'it'\\''s'"],
    ["$HOME", "'$HOME'"],
    ["a;rm -rf", "'a;rm -rf'"],
    ["", "''"],
  ])("shellQuote(%j) → %s", (word, quoted) => expect(shellQuote(word)).toBe(quoted));

  it("carries the global flags given on the command line, in front of the command", () => {
    expect(resumeCommand({ profile: "ci", target: "hosted", baseUrl: "http://h:1" }, ["asset", "status", "a", "b", "--watch", "--download", "/tmp/my out"])).toBe(
      "mediagen --profile ci --target hosted --base-url http://h:1 asset status a b --watch --download '/tmp/my out'",
    );
    expect(resumeCommand({}, ["asset", "status", "a", "--watch"])).toBe("mediagen asset status a --watch");
    expect(withGlobalFlags({ target: "local" }, "mediagen export status j1 --watch")).toBe("mediagen --target local export status j1 --watch");
    expect(withGlobalFlags({}, "mediagen export status j1 --watch")).toBe("mediagen export status j1 --watch");
  });
});
