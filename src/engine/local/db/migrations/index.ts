import { core } from "./001-core.js";
import { assets } from "./002-assets.js";
import { avatars } from "./003-avatars.js";

/** Versioned migrations: entry i brings the schema to `PRAGMA user_version` i + 1. Append only. */
export const migrations: string[] = [core, assets, avatars];
