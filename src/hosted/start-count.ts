/**
 * A start answers one id per generation asked for: `asset/start` with `generation_count` n returns n
 * `asset_ids` (and `count` n). A service that answers more (10,000 ids for one generation, in a
 * review) would make the CLI record, watch and download every one; fewer would lose paid work
 * silently. Either is an unexpected response (exit 1), said before anything reads the ids.
 */
import { UnexpectedResponseError } from "./response-check.js";

export function checkStartCount(op: string, input: unknown, body: unknown, status: number): void {
  if (op !== "assetStart") return;
  const asked = (input as { generation_count?: unknown } | undefined)?.generation_count;
  const want = typeof asked === "number" && Number.isInteger(asked) ? asked : 1;
  const ids = (body as { asset_ids?: unknown[] }).asset_ids ?? [];
  const count = (body as { count?: unknown }).count;
  if (ids.length !== want) {
    throw new UnexpectedResponseError(
      "asset_ids",
      `has ${ids.length} ids for a start of ${want} generation${want === 1 ? "" : "s"} (the start may have been charged: check the service's dashboard)`,
      op,
      status,
    );
  }
  if (typeof count === "number" && count !== want) {
    throw new UnexpectedResponseError("count", `is ${count} for a start of ${want} generation${want === 1 ? "" : "s"}`, op, status);
  }
}
