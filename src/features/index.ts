/**
 * The commands each feature adds to the CLI, keyed by the names of the feature list
 * (src/features/routes.ts, the one list of features): the type checker refuses a feature without an
 * entry or an entry without a feature. Only the names' type is read from the list, so the registry
 * (which every start reads) loads no route table. The emulator side is in ./emulators.ts.
 */
import type { FeatureName } from "./routes.js";
import type { FeatureManifest } from "./types.js";
import { folder } from "./folder/index.js";
import { asset } from "./asset/index.js";
import { avatar } from "./avatar/index.js";
import { voice } from "./voice/index.js";
import { script } from "./script/index.js";
import { generation } from "./generation/index.js";
import { video } from "./video/index.js";
import { exp } from "./export/index.js";

const BY_NAME: { readonly [K in FeatureName]: FeatureManifest & { name: K } } = { folder, asset, avatar, voice, script, generation, video, export: exp };

/** The features' commands, in the feature list's order (test/unit/routes.test.ts). */
export const FEATURES: readonly FeatureManifest[] = Object.values(BY_NAME);
