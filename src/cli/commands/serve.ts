import type { CommandModule } from "../types.js";

/** Placeholder until this command group lands. */
export const command: CommandModule = { register() {} };
