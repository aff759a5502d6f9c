import { describe, expect, it } from "vitest";
import { characterCount, scriptPlanOf } from "../../src/features/script/emulator/validate.js";
import { ScriptGenerateRequest, requestCodes } from "../../src/features/script/contract.js";
import { checkRequest } from "../../src/contract/request-check.js";
import { scriptCredits } from "../../src/contract/pricing.js";
import { ApiError } from "../../src/engine/errors.js";
import { apiErrorOf } from "../helpers/errors.js";

/** What dispatch does: the check at the door (one parse), then the handler's plan with the defaults. */
function validateScriptRequest(body: Record<string, unknown>) {
  const refused = checkRequest(ScriptGenerateRequest, requestCodes.scriptGenerate, body);
  if (refused) throw new ApiError(refused.status, refused.body);
  return scriptPlanOf(body as never);
}

const check = (body: Record<string, unknown>) => {
  const e = apiErrorOf(() => validateScriptRequest(body));
  return [e.status, e.code, e.field];
};

describe("script request rules", () => {
  it("fills the defaults: duration 60, no URLs, no web search", () => {
    expect(validateScriptRequest({ prompt: "Night trains." })).toEqual({ prompt: "Night trains.", duration: 60, urls: [], webSearch: false });
    // null is not "not given" for these: the door refuses it as the wrong type.
    expect(check({ prompt: "x", duration: null })).toEqual([400, "INVALID_TYPE", "duration"]);
    expect(check({ prompt: "x", urls: null })).toEqual([400, "INVALID_TYPE", "urls"]);
    expect(check({ prompt: "x", webSearch: null })).toEqual([400, "INVALID_TYPE", "webSearch"]);
  });

  it("keeps what was given, URLs normalised", () => {
    expect(validateScriptRequest({ prompt: " p ", duration: 45.5, urls: [" https://Example.com/a b", "http://x.org"], webSearch: true })).toEqual({
      prompt: " p ",
      duration: 45.5,
      urls: ["https://example.com/a%20b", "http://x.org/"],
      webSearch: true,
    });
  });

  it.each([
    [{}, "MISSING_FIELD", "prompt"],
    [{ prompt: null }, "MISSING_FIELD", "prompt"],
    [{ prompt: "x", extra: 1 }, "INVALID_VALUE", "extra"],
    [{ prompt: "" }, "MISSING_FIELD", "prompt"],
    [{ prompt: "\n\t " }, "MISSING_FIELD", "prompt"],
    [{ prompt: ["x"] }, "INVALID_TYPE", "prompt"],
    [{ prompt: { text: "x" } }, "INVALID_TYPE", "prompt"],
    [{ prompt: "x".repeat(10_001) }, "INVALID_VALUE", "prompt"],
    [{ prompt: "x", duration: true }, "INVALID_TYPE", "duration"],
    [{ prompt: "x", duration: "60" }, "INVALID_TYPE", "duration"],
    [{ prompt: "x", duration: 9.999 }, "INVALID_VALUE", "duration"],
    [{ prompt: "x", duration: -60 }, "INVALID_VALUE", "duration"],
    [{ prompt: "x", duration: 600.5 }, "INVALID_VALUE", "duration"],
    [{ prompt: "x", urls: {} }, "INVALID_TYPE", "urls"],
    [{ prompt: "x", urls: Array(11).fill("https://example.com") }, "INVALID_VALUE", "urls"],
    [{ prompt: "x", urls: [null] }, "INVALID_TYPE", "urls[0]"],
    [{ prompt: "x", urls: ["https://ok.example", ""] }, "INVALID_VALUE", "urls[1]"],
    [{ prompt: "x", urls: ["mailto:a@b.c"] }, "INVALID_VALUE", "urls[0]"],
    [{ prompt: "x", urls: ["/relative/path"] }, "INVALID_VALUE", "urls[0]"],
    [{ prompt: "x", webSearch: 1 }, "INVALID_TYPE", "webSearch"],
    [{ prompt: "x", webSearch: "true" }, "INVALID_TYPE", "webSearch"],
  ])("%j → %s on %s", (body, code, field) => {
    expect(check(body)).toEqual([400, code, field]);
  });

  it("checks in the spec's order: prompt, duration, urls, webSearch; within a field missing, type, value", () => {
    const everythingWrong = { duration: "x", urls: 3, webSearch: "y" };
    expect(check(everythingWrong)).toEqual([400, "MISSING_FIELD", "prompt"]);
    expect(check({ ...everythingWrong, prompt: 3 })).toEqual([400, "INVALID_TYPE", "prompt"]);
    expect(check({ ...everythingWrong, prompt: "x".repeat(10_001) })).toEqual([400, "INVALID_VALUE", "prompt"]);
    expect(check({ ...everythingWrong, prompt: "x" })).toEqual([400, "INVALID_TYPE", "duration"]);
    expect(check({ ...everythingWrong, prompt: "x", duration: 1 })).toEqual([400, "INVALID_VALUE", "duration"]);
    expect(check({ ...everythingWrong, prompt: "x", duration: 10 })).toEqual([400, "INVALID_TYPE", "urls"]);
    expect(check({ ...everythingWrong, prompt: "x", duration: 10, urls: Array(11).fill(0) })).toEqual([400, "INVALID_VALUE", "urls"]);
    expect(check({ ...everythingWrong, prompt: "x", duration: 10, urls: ["ftp://a", 0] })).toEqual([400, "INVALID_VALUE", "urls[0]"]);
    expect(check({ ...everythingWrong, prompt: "x", duration: 10, urls: [0, "ftp://a"] })).toEqual([400, "INVALID_TYPE", "urls[0]"]);
    expect(check({ ...everythingWrong, prompt: "x", duration: 10, urls: [] })).toEqual([400, "INVALID_TYPE", "webSearch"]);
  });

  it("answers with the spec's envelope, the upper-case code and the field", () => {
    const e = apiErrorOf(() => validateScriptRequest({ prompt: "x", duration: 700 }));
    expect(e.body).toEqual({
      error: "Validation failed",
      details: [{ code: "INVALID_VALUE", message: "duration must be from 10 to 600 seconds, got 700", field: "duration" }],
    });
    expect(e.message).toBe("duration must be from 10 to 600 seconds, got 700");
  });

  it("counts the prompt in characters (code points), so 10,000 emoji are within the limit", () => {
    expect(characterCount("a🎉é")).toBe(3);
    expect(validateScriptRequest({ prompt: "🎉".repeat(10_000) }).prompt).toHaveLength(20_000);
    expect(check({ prompt: "🎉".repeat(10_001) })).toEqual([400, "INVALID_VALUE", "prompt"]);
    expect(apiErrorOf(() => validateScriptRequest({ prompt: "x".repeat(12_345) })).message).toBe("prompt is 12345 characters; the limit is 10,000");
  });
});

describe("script price (0.1 per started 60 s, +0.1 with web search, +0.1 per URL)", () => {
  it.each([
    [10, false, 0, 0.1],
    [59.5, false, 0, 0.1],
    [60, false, 0, 0.1],
    [61, false, 0, 0.2],
    [120, false, 0, 0.2],
    [120.01, false, 0, 0.3],
    [600, false, 0, 1],
    [60, true, 0, 0.2],
    [60, false, 1, 0.2],
    [60, false, 10, 1.1],
    [600, true, 10, 2.1],
    [61, true, 3, 0.6],
  ])("%s s, web search %s, %s URLs → %s credits", (duration, webSearch, urls, credits) => {
    expect(scriptCredits(duration, webSearch, urls)).toBe(credits);
  });
});
