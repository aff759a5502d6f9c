import { ApiError } from "../../engine/errors.js";
import { NAME_MAX } from "../../contract/limits.js";
import type { Folder, FolderType } from "./contract.js";
import type { HandlerTable, RequestContext } from "../../local/types.js";
import { withArticle } from "../../engine/words.js";

const TYPES: readonly FolderType[] = ["assets", "videos"];

interface FolderRow {
  id: string;
  space_id: string;
  name: string;
  type: FolderType;
  parent_folder_id: string | null;
  created_at: string;
}

function toFolder(r: FolderRow): Folder {
  return { id: r.id, name: r.name, type: r.type, parent_folder_id: r.parent_folder_id, created_at: r.created_at };
}

function invalid(field: string, message: string): ApiError {
  return ApiError.of("invalid_value", message, { field });
}

function parseType(v: unknown, emptyIsAbsent: boolean): FolderType | undefined {
  if (v === undefined || v === null || (emptyIsAbsent && v === "")) return undefined;
  if (typeof v === "string" && (TYPES as readonly string[]).includes(v)) return v as FolderType;
  throw invalid("type", `type must be one of ${TYPES.join(", ")}`);
}

function createFolder(ctx: RequestContext, input: Record<string, unknown>): Folder {
  const { name } = input;
  if (name === undefined || name === null || (typeof name === "string" && name.trim() === "")) {
    throw ApiError.of("missing_field", "name is required", { field: "name" });
  }
  if (typeof name !== "string") throw invalid("name", "name must be a string");
  if (name.length > NAME_MAX) throw invalid("name", `name is longer than ${NAME_MAX} characters`);
  const type = parseType(input.type, false) ?? "assets";

  const { instance, space } = ctx;
  const parentId = input.parent_folder_id;
  return instance.tx(() => {
    if (parentId !== undefined && parentId !== null) {
      const parent =
        typeof parentId === "string"
          ? (instance.db.prepare("SELECT * FROM folders WHERE id = ? AND space_id = ?").get(parentId, space.id) as FolderRow | undefined)
          : undefined;
      if (!parent) throw invalid("parent_folder_id", "parent_folder_id does not refer to a folder of this space");
      if (parent.type !== type) {
        throw invalid("parent_folder_id", `parent_folder_id refers to ${withArticle(parent.type)} folder; ${withArticle(type)} folder needs a parent of the same type`);
      }
    }
    const row: FolderRow = {
      id: instance.ids.hex24(),
      space_id: space.id,
      name,
      type,
      parent_folder_id: (parentId as string | null | undefined) ?? null,
      created_at: instance.nowIso(),
    };
    instance.db
      .prepare("INSERT INTO folders (id, space_id, name, type, parent_folder_id, created_at) VALUES (@id, @space_id, @name, @type, @parent_folder_id, @created_at)")
      .run(row);
    return toFolder(row);
  });
}

function listFolders(ctx: RequestContext, input: Record<string, unknown>): { folders: Folder[] } {
  // Over HTTP an empty query value means the filter was not given.
  const type = parseType(input.type, true);
  const rows = ctx.instance.db
    .prepare("SELECT * FROM folders WHERE space_id = ? AND (? IS NULL OR type = ?) ORDER BY rowid")
    .all(ctx.space.id, type ?? null, type ?? null) as FolderRow[];
  return { folders: rows.map(toFolder) };
}

export const folderHandlers: HandlerTable = {
  folderCreate: (ctx, input) => createFolder(ctx, input as Record<string, unknown>),
  folderList: (ctx, input) => listFolders(ctx, (input ?? {}) as Record<string, unknown>),
};
