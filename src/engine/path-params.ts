import { fillPath } from "../features/routes.js";
import { ApiError } from "./errors.js";

/**
 * `fillPath`, with its refusals as the 400 both targets answer without doing anything: an empty
 * path parameter (`missing_field`) or `.`/`..` (`invalid_value`) would address another path.
 */
export function fillPathOrRefuse(template: string, input: Record<string, unknown>): ReturnType<typeof fillPath> {
  try {
    return fillPath(template, input);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const name = /parameter (\w+)/.exec(message)?.[1] ?? "id";
    if (message.startsWith("invalid path parameter")) {
      throw ApiError.of("invalid_value", `${name} cannot be "." or ".."`, { field: name });
    }
    throw ApiError.of("missing_field", `${name} is required`, { field: name });
  }
}
