/** src/engine/redact.ts: what is masked wherever mediagen prints for people. */
import { describe, expect, it } from "vitest";
import { maskKey, redact, redactHeaders, registerSecret } from "../../src/engine/redact.js";

const HEX = "0123456789abcdef".repeat(4);

describe("redact", () => {
  it.each([
    ["the local instance's prefix", `mg_live_${HEX}`, "mg_live_[REDACTED]"],
    ["another live prefix", `sk_live_${HEX}`, "sk_live_[REDACTED]"],
    ["a prefix with underscores", `acme_prod_live_${HEX}`, "acme_prod_live_[REDACTED]"],
    ["a test key", `xy_test_${HEX.toUpperCase()}`, "xy_test_[REDACTED]"],
    ["a cut-off key", `sk_live_${HEX.slice(0, 12)}`, "sk_live_[REDACTED]"],
  ])("masks %s", (_n, key, masked) => {
    const out = redact(`Invalid API key: ${key}.`);
    expect(out).toBe(`Invalid API key: ${masked}.`);
  });

  it("masks any Bearer value that could be a credential, whatever its shape", () => {
    expect(redact('Authorization: Bearer abc.DEF-123 sent, "Bearer x7"')).toBe('Authorization: Bearer [REDACTED] sent, "Bearer [REDACTED]"');
  });

  it("masks a registered secret of any format, and leaves other text alone", () => {
    registerSecret("hunter2-is-my-key");
    registerSecret("short");
    expect(redact("key hunter2-is-my-key rejected; short words stay")).toBe("key [REDACTED] rejected; short words stay");
    expect(redact("live_long and prosper")).toBe("live_long and prosper");
  });

  it("redactHeaders hides Authorization entirely", () => {
    expect(redactHeaders({ Authorization: `Bearer sk_live_${HEX}`, "x-echo": `sk_live_${HEX}` })).toEqual({
      Authorization: "[REDACTED]",
      "x-echo": "sk_live_[REDACTED]",
    });
  });
});

describe("maskKey", () => {
  it.each([
    [`mg_live_${HEX}`, `mg_live_…${HEX.slice(-4)}`],
    [`sk_live_${HEX}`, `sk_live_…${HEX.slice(-4)}`],
    [`acme_prod_live_${HEX}`, `acme_prod_live_…${HEX.slice(-4)}`],
    ["whatever-secret-token-42", "wha…n-42"],
    ["short", "****"],
  ])("%s → %s", (key, shown) => {
    expect(maskKey(key)).toBe(shown);
  });
});
