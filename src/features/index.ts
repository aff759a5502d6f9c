/**
 * The one list of features (resources of the service). Everything that spans resources is derived
 * from it: the operation table (`operations.ts`), the local instance's handlers, job kinds and
 * migrations (`local.ts`), and the CLI's command registry. A new resource is a folder and a line here.
 */
import { folder } from "./folder/index.js";
import { asset } from "./asset/index.js";
import { avatar } from "./avatar/index.js";
import { voice } from "./voice/index.js";
import { script } from "./script/index.js";
import { generation } from "./generation/index.js";
import { video } from "./video/index.js";
import { exp } from "./export/index.js";

export const FEATURES = [folder, asset, avatar, voice, script, generation, video, exp] as const;
export type Features = typeof FEATURES;
