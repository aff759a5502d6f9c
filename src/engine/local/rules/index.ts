import type { HandlerTable } from "../types.js";
import { folderHandlers } from "./folders.js";
import { assetHandlers } from "./assets.js";
import { avatarHandlers } from "./avatars.js";
import { voiceHandlers } from "./voices.js";

/** Every endpoint the local instance implements. An operation missing here answers 501. */
export const handlers: HandlerTable = {
  ...folderHandlers,
  ...assetHandlers,
  ...avatarHandlers,
  ...voiceHandlers,
};
