import { z } from "zod";

/** ISO 8601 timestamp string. */
export const Timestamp = z.string();
/** Query booleans arrive as strings over HTTP and as booleans in process. */
export const QueryBool = z.union([z.boolean(), z.enum(["true", "false", "1", "0"])]);
export const QueryString = z.string();

export { parseQueryBool, splitList } from "./query.js";
