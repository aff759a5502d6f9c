/**
 * The emulator side of each feature (the local instance's handlers and job kinds), keyed by the
 * names of the feature list (./routes.ts): the type checker refuses a feature without an entry or an
 * entry without a feature. Kept apart from the commands (./index.ts), so the local target loads no
 * command and a command loads no handler.
 */
import type { FeatureName } from "./routes.js";
import type { HandlerTable, JobKind } from "../local/types.js";

/** A schema change of the local instance owned by a feature (./migrations.ts). */
export interface Migration {
  /** Global `PRAGMA user_version` this migration brings the schema to (1 is the local core). */
  version: number;
  sql: string;
}

/** What a feature adds to the local instance: its handlers and its job kinds. */
export interface LocalPart {
  handlers?: HandlerTable;
  jobKinds?: Record<string, JobKind>;
}

export interface FeatureEmulator {
  /** Its local handlers (absent: the local instance answers 501). */
  local?(): Promise<LocalPart>;
  /** Its job kinds, which run in a worker (they reach the media layer: never loaded to answer a read). */
  jobs?(): Promise<Record<string, JobKind>>;
}

export const FEATURE_EMULATORS: { readonly [K in FeatureName]: FeatureEmulator } = {
  folder: { local: async () => ({ handlers: (await import("./folder/emulator/local.js")).folderHandlers }) },
  asset: {
    local: async () => ({ handlers: (await import("./asset/emulator/local.js")).assetHandlers }),
    jobs: async () => (await import("./asset/emulator/job.js")).assetKinds,
  },
  avatar: {
    local: async () => ({ handlers: (await import("./avatar/emulator/local.js")).avatarHandlers }),
    jobs: async () => (await import("./avatar/emulator/job.js")).lookKinds,
  },
  voice: { local: async () => ({ handlers: (await import("./voice/emulator/local.js")).voiceHandlers }) },
  script: { local: async () => ({ handlers: (await import("./script/emulator/local.js")).scriptHandlers }) },
  generation: {
    local: async () => ({ handlers: (await import("./generation/emulator/local.js")).generationHandlers }),
    jobs: async () => (await import("./generation/emulator/job.js")).generationKinds,
  },
  video: { local: async () => ({ handlers: (await import("./video/emulator/local.js")).videoHandlers }) },
  export: {
    local: async () => ({ handlers: (await import("./export/emulator/local.js")).exportHandlers }),
    jobs: async () => (await import("./export/emulator/public/job.js")).exportKinds,
  },
};
