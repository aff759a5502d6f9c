import type { HandlerTable } from "../types.js";

export const voiceHandlers: HandlerTable = {};
