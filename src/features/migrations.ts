/**
 * The schema of the local instance, in `PRAGMA user_version` order: the core's tables (1), then the
 * features' (their `schema.ts`, SQL text only). Kept apart from the features' handlers so opening the
 * instance reads one version number and loads no handler: a new table or column is a migration
 * appended here with the next version.
 */
import { core } from "../local/db/core-schema.js";
import { assets, modelCatalogTable, CATALOG_MIGRATION_VERSION, catalogAvatarsColumn, CATALOG_AVATARS_MIGRATION_VERSION } from "./asset/emulator/schema.js";
import { avatars, lookTagsColumn, LOOK_TAGS_MIGRATION_VERSION } from "./avatar/emulator/schema.js";
import { generations } from "./generation/emulator/schema.js";
import { videos } from "./video/emulator/schema.js";
import { scripts, SCRIPTS_MIGRATION_VERSION } from "./script/emulator/schema.js";
import { exportsTable } from "./export/emulator/schema.js";
import { emulatorTables, EMULATOR_MIGRATION_VERSION } from "../local/db/emulator-schema.js";
import { webhookIdColumn, WEBHOOK_ID_MIGRATION_VERSION } from "../local/db/webhook-id-schema.js";
import { startsTable, STARTS_MIGRATION_VERSION } from "../local/db/starts-schema.js";
import type { Migration } from "./emulators.js";

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, sql: core },
  { version: 2, sql: assets },
  { version: 3, sql: avatars },
  { version: 4, sql: generations },
  { version: 5, sql: videos },
  { version: SCRIPTS_MIGRATION_VERSION, sql: scripts },
  { version: 7, sql: exportsTable },
  { version: CATALOG_MIGRATION_VERSION, sql: modelCatalogTable },
  { version: EMULATOR_MIGRATION_VERSION, sql: emulatorTables },
  { version: CATALOG_AVATARS_MIGRATION_VERSION, sql: catalogAvatarsColumn },
  { version: LOOK_TAGS_MIGRATION_VERSION, sql: lookTagsColumn },
  { version: WEBHOOK_ID_MIGRATION_VERSION, sql: webhookIdColumn },
  { version: STARTS_MIGRATION_VERSION, sql: startsTable },
];
