/**
 * The route table (src/features/routes.ts: no zod) is the light half of the operation table (the
 * features' zod contracts merged in src/features/operations.ts): routing, calling and dispatching read
 * it, so it must say exactly what the contracts say, operation by operation and in the same order
 * (route order matters: literal paths before parameterised ones sharing a prefix). Both are made of
 * the same route facts (each feature's routes.ts), so this holds by construction; the test keeps it.
 */
import { describe, expect, it } from "vitest";
import { operations } from "../../src/features/operations.js";
import { FEATURES } from "../../src/features/index.js";
import { FEATURE_LIST, ROUTES, featureOf, matchRoute } from "../../src/features/routes.js";
import { FEATURE_EMULATORS } from "../../src/features/emulators.js";
import { MIGRATIONS } from "../../src/features/migrations.js";

describe("route table", () => {
  it("names every operation of the contracts, in their order", () => {
    expect(Object.keys(ROUTES)).toEqual(Object.keys(operations));
  });

  it("gives each operation the contract's method, path, status, summary and aliases", () => {
    for (const [name, def] of Object.entries(operations)) {
      const { request: _request, response: _response, ...route } = def;
      expect(ROUTES[name as keyof typeof ROUTES], name).toEqual(route);
    }
  });

  it("routes a path to the operation the contracts give it", () => {
    expect(matchRoute("GET", "/asset/models/vidA-3")).toEqual({ op: "assetModel", params: { name: "vidA-3" } });
    expect(matchRoute("GET", "/asset/models")).toEqual({ op: "assetModels", params: {} });
    expect(matchRoute("POST", "/folder/list")).toEqual({ allowed: ["GET"] });
    expect(matchRoute("GET", "/nowhere")).toBeUndefined();
  });

  it("each feature's contract declares exactly the operations of its route facts, and each operation has one feature", async () => {
    const owners = new Map<string, string>();
    for (const f of FEATURE_LIST) {
      expect(Object.keys((await f.contract()).operations), f.name).toEqual(Object.keys(f.routes));
      for (const op of Object.keys(f.routes)) {
        expect(owners.get(op), op).toBeUndefined();
        owners.set(op, f.name);
        expect(featureOf(op)?.name).toBe(f.name);
      }
    }
    expect(featureOf("noSuchOperation")).toBeUndefined();
  });

  it("the commands (features/index.ts) and the emulators (features/emulators.ts) follow the feature list", () => {
    expect(FEATURES.map((f) => f.name)).toEqual(FEATURE_LIST.map((f) => f.name));
    expect(Object.keys(FEATURE_EMULATORS)).toEqual(FEATURE_LIST.map((f) => f.name));
  });
});

describe("migrations", () => {
  it("number 1, 2, … without gaps", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});
