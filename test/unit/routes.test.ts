/**
 * The route table (src/features/routes.ts: no zod) is the light half of the operation table (the
 * features' zod contracts merged in src/features/operations.ts): routing, calling and dispatching read
 * it, so it must say exactly what the contracts say, operation by operation and in the same order
 * (route order matters: literal paths before parameterised ones sharing a prefix).
 */
import { describe, expect, it } from "vitest";
import { operations } from "../../src/features/operations.js";
import { FEATURES } from "../../src/features/index.js";
import { ROUTES, matchRoute } from "../../src/features/routes.js";
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

  it("owns each operation by the feature whose name prefixes it, or loads every feature for it", async () => {
    // src/features/local.ts loads a feature's handlers for an operation named after it.
    const misnamed: string[] = [];
    let owned = 0;
    for (const f of FEATURES) {
      for (const op of Object.keys((await f.contract()).operations)) {
        const owner = FEATURES.find((g) => op.startsWith(g.name));
        if (owner === f) owned++;
        else if (owner) misnamed.push(`${op} belongs to ${f.name} but is named after ${owner.name}`);
      }
    }
    expect(misnamed).toEqual([]);
    expect(owned).toBeGreaterThan(Object.keys(ROUTES).length / 2);
  });
});

describe("migrations", () => {
  it("number 1, 2, … without gaps", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});
