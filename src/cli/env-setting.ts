/** Reading a variable of src/config/env.ts from a command: a value it cannot use is a usage error (exit 2). */
import { InvalidEnvError } from "../config/env.js";
import { CliError, EXIT } from "./types.js";

export function envSetting<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof InvalidEnvError) throw new CliError(e.message, EXIT.usage, "invalid_value", e.variable);
    throw e;
  }
}
