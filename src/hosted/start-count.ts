/**
 * A start answers one id per generation asked for: `asset/start` with `generation_count` n returns n
 * `asset_ids` (and `count` n). A service that answers more (10,000 ids for one generation, in a
 * review) would make the CLI record, watch and download every one: that (and none at all) is an
 * unexpected response (exit 1), said before anything reads the ids. Fewer ids than asked, or a
 * `count` that disagrees, is a warning: the ids named were paid for and are printed.
 */
import { UnexpectedResponseError } from "./response-check.js";

export function checkStartCount(op: string, input: unknown, body: unknown, status: number): string | undefined {
  if (op !== "assetStart") return undefined;
  const asked = (input as { generation_count?: unknown } | undefined)?.generation_count;
  const want = typeof asked === "number" && Number.isInteger(asked) ? asked : 1;
  const ids = (body as { asset_ids?: unknown[] }).asset_ids ?? [];
  const count = (body as { count?: unknown }).count;
  const of = `for a start of ${want} generation${want === 1 ? "" : "s"}`;
  if (ids.length > want || ids.length === 0) {
    throw new UnexpectedResponseError("asset_ids", `has ${ids.length} ids ${of} (the start may have been charged: check the service's dashboard)`, op, status);
  }
  // Fewer ids than asked: the ones named were paid for, so they are printed and followed (issue 34).
  if (ids.length < want) return `asset_ids has ${ids.length} ids ${of}: the others were not named (check the service's dashboard)`;
  if (typeof count === "number" && count !== want) return `count is ${count} ${of}`;
  return undefined;
}
