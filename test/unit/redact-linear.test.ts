/**
 * Redaction is linear in its input (a hostile server answering a 1 MB id must not hold the CLI at
 * 100 % CPU for hours), and it masks keys, never the words around them. The work is counted by
 * redact.ts itself (characters examined), so these tests do not time anything; the 1 MB inputs
 * would run for hours under the old quadratic pattern, so before the fix they time out.
 */
import { describe, expect, it } from "vitest";
import { lastRedactWork, redact } from "../../src/engine/redact.js";

const MB = 1024 * 1024;
const HEX = "0123456789abcdef".repeat(4);

/** Inputs built to make a backtracking pattern retry from every position. */
const HOSTILE: [string, (n: number) => string][] = [
  ["one alphanumeric run", (n) => "a".repeat(n)],
  ["a run ending in _live_ and too few hex digits", (n) => "a".repeat(n - 10) + "_live_abc"],
  ["repeated prefixes", (n) => "a_live_".repeat(Math.ceil(n / 7)).slice(0, n)],
  ["repeated Bearer", (n) => "Bearer ".repeat(Math.ceil(n / 7)).slice(0, n)],
  ["Bearer and whitespace", (n) => "Bearer" + " ".repeat(n - 6)],
  ["hex runs one short", (n) => "k_test_1234567 ".repeat(Math.ceil(n / 15)).slice(0, n)],
];

describe("redaction is linear", () => {
  it.each(HOSTILE)("1 MB of %s is redacted within a few passes over it", (_name, make) => {
    const text = make(MB);
    redact(text);
    expect(lastRedactWork()).toBeLessThanOrEqual(4 * text.length);
  });

  it("doubling the input doubles the work (not four times)", () => {
    const [, make] = HOSTILE[0]!;
    redact(make(MB / 2));
    const half = lastRedactWork();
    redact(make(MB));
    const full = lastRedactWork();
    expect(full / half).toBeLessThan(2.5);
  });

  it("still masks the keys inside a megabyte of noise", () => {
    const out = redact(`${"z".repeat(MB)} sk_live_${HEX} ${"Bearer abc.DEF-123 ".repeat(3)}`);
    expect(out).toContain("sk_live_[REDACTED]");
    expect(out).not.toContain(HEX);
    expect(out).not.toContain("abc.DEF-123");
  });
});

describe("redaction keeps the words around a key", () => {
  it.each([
    "expected Authorization: Bearer <key> followed by 64 hexadecimal characters",
    "send Authorization: Bearer <API_KEY>",
    "Authorization: Bearer followed by the key",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell-style placeholder, as a user would paste it
    "use the header Authorization: Bearer ${MEDIAGEN_API_KEY}",
    "a live_ prefix then _live_ and 64 hex characters",
  ])("%s (no key in it) is left as it is", (text) => {
    expect(redact(text)).toBe(text);
  });

  it("masks only the key in a sentence that has one", () => {
    expect(redact(`rejected Authorization: Bearer mg_live_${HEX} followed by more`)).toBe("rejected Authorization: Bearer [REDACTED] followed by more");
    expect(redact(`key mg_live_${HEX}, then text`)).toBe("key mg_live_[REDACTED], then text");
  });
});
