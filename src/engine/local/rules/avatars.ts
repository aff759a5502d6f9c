import type { HandlerTable } from "../types.js";

export const avatarHandlers: HandlerTable = {};
