import type { HandlerTable } from "../types.js";

export const assetHandlers: HandlerTable = {};
