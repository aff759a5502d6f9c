/**
 * Folder endpoints of the local instance. The door (the operations' schemas, ./contract.ts) judged
 * the request; what is left needs the space: the parent folder exists here and is of the same type.
 */
import { ApiError } from "../../../engine/errors.js";
import type { Folder, FolderCreateInput, FolderListInput, FolderType } from "../contract.js";
import type { HandlerTable, RequestContext } from "../../../local/types.js";
import { withArticle } from "../../../engine/words.js";

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

function createFolder(ctx: RequestContext, input: FolderCreateInput): Folder {
  const { name } = input;
  const type = input.type ?? "assets";

  const { instance, space } = ctx;
  const parentId = input.parent_folder_id;
  return instance.tx(() => {
    if (parentId !== undefined && parentId !== null) {
      const parent = instance.db.prepare("SELECT * FROM folders WHERE id = ? AND space_id = ?").get(parentId, space.id) as FolderRow | undefined;
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
      parent_folder_id: parentId ?? null,
      created_at: instance.nowIso(),
    };
    instance.db
      .prepare("INSERT INTO folders (id, space_id, name, type, parent_folder_id, created_at) VALUES (@id, @space_id, @name, @type, @parent_folder_id, @created_at)")
      .run(row);
    const answer = toFolder(row);
    ctx.keepStart?.(answer);
    return answer;
  });
}

function listFolders(ctx: RequestContext, input: FolderListInput): { folders: Folder[] } {
  // Over HTTP an empty query value means the filter was not given.
  const type = input.type || undefined;
  const rows = ctx.instance.db
    .prepare("SELECT * FROM folders WHERE space_id = ? AND (? IS NULL OR type = ?) ORDER BY rowid")
    .all(ctx.space.id, type ?? null, type ?? null) as FolderRow[];
  return { folders: rows.map(toFolder) };
}

export const folderHandlers: HandlerTable = {
  // The door (the operations' schemas) passed the requests: the handlers take their types.
  folderCreate: (ctx, input) => createFolder(ctx, input as FolderCreateInput),
  folderList: (ctx, input) => listFolders(ctx, (input ?? {}) as FolderListInput),
};
