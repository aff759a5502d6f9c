import { describe, expect, it } from "vitest";
import { hasApiAccess, meetsRequiredPlans, parsePlan, voiceTiersFor } from "../../src/contract/plans.js";

describe("plans", () => {
  it.each([
    ["free", "free"],
    ["FREE", "free"],
    ["Start", "start"],
    ["pro", "PRO"],
    ["PRO", "PRO"],
    ["entreprise", "ENTREPRISE"],
    ["Enterprise", "ENTREPRISE"],
    ["gold", undefined],
  ])("parsePlan(%s) → %s (case-insensitive)", (input, plan) => {
    expect(parsePlan(input)).toBe(plan);
  });

  it("API access needs PRO or higher", () => {
    expect([hasApiAccess("free"), hasApiAccess("start"), hasApiAccess("PRO"), hasApiAccess("ENTREPRISE")]).toEqual([false, false, true, true]);
  });

  it.each([
    [[], "free", true],
    [["PRO", "ENTREPRISE"], "start", false],
    [["PRO", "ENTREPRISE"], "PRO", true],
    [["PRO"], "ENTREPRISE", true],
    [["ENTREPRISE"], "PRO", false],
    [["ENTREPRISE"], "ENTREPRISE", true],
  ] as const)("required %j, plan %s → %s (a higher plan qualifies)", (required, plan, ok) => {
    expect(meetsRequiredPlans(plan, required)).toBe(ok);
  });

  it("voice tiers grow with the plan", () => {
    expect(voiceTiersFor("free")).toEqual(["free"]);
    expect(voiceTiersFor("start")).toEqual(["free", "start"]);
    expect(voiceTiersFor("PRO")).toEqual(["free", "start", "pro"]);
    expect(voiceTiersFor("ENTREPRISE")).toEqual(["free", "start", "pro", "enterprise"]);
  });
});
