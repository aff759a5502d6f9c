import type { HandlerTable } from "../types.js";

export const folderHandlers: HandlerTable = {};
