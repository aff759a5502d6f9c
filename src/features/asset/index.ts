import type { LocalPart } from "../types.js";

export const asset = {
  name: "asset",
  commands: [{ name: "asset", summary: "Generate images and videos (assets) with a model", load: () => import("./cli.js") }],
  contract: () => import("./contract.js"),
  local: async (): Promise<LocalPart> => {
    const [{ assetHandlers }, { assetKinds }, { assets }, { CATALOG_MIGRATION_VERSION, modelCatalogTable }] = await Promise.all([
      import("./local.js"),
      import("./job.js"),
      import("./schema.js"),
      import("./catalog-sync.js"),
    ]);
    return {
      handlers: assetHandlers,
      jobKinds: assetKinds,
      migrations: [
        { version: 2, sql: assets },
        // The synced model catalog (`mediagen local catalog sync`).
        { version: CATALOG_MIGRATION_VERSION, sql: modelCatalogTable },
      ],
    };
  },
} as const;
