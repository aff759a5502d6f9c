import { z } from "zod";
import { op } from "../../contract/operation.js";
import { folderRoutes } from "./routes.js";
import { Timestamp } from "../../contract/common.js";
import type { RequestCodes } from "../../contract/request-check.js";
import { NAME_MAX } from "../../contract/limits.js";
import { present } from "../../contract/present.js";
import { FOLDER_TYPES } from "../../contract/folder-types.js";

export const FolderType = z.enum(FOLDER_TYPES);
export type FolderType = z.infer<typeof FolderType>;

/** A folder is known by its id; the rest may be absent or null (an entry without an id is left out of a listing). */
export const Folder = z.looseObject({
  id: z.string(),
  name: z.string().nullish(),
  type: FolderType.nullish(),
  parent_folder_id: z.string().nullish(),
  created_at: Timestamp.nullish(),
});
export type Folder = z.infer<typeof Folder>;

const FolderTypeInput = z.enum(FOLDER_TYPES, { error: `must be one of ${FOLDER_TYPES.join(", ")}` });

/** POST /folder/create: a name (absent, null or blank is missing_field), a type, a parent (null: a root folder). */
export const FolderCreateRequest = z.strictObject({
  name: present(z.string().max(NAME_MAX, { error: `is longer than ${NAME_MAX} characters` }), "missing_field"),
  type: FolderTypeInput.optional(),
  parent_folder_id: z.string().nullable().optional(),
});
export type FolderCreateRequest = z.input<typeof FolderCreateRequest>;
/** A create request as the door passed it (the local handler's input). */
export type FolderCreateInput = z.output<typeof FolderCreateRequest>;

export const FolderListRequest = z.strictObject({ type: z.union([FolderTypeInput, z.literal("")]).optional() });
export type FolderListRequest = z.input<typeof FolderListRequest>;
export type FolderListInput = z.output<typeof FolderListRequest>;

export const FolderListResponse = z.looseObject({ folders: z.array(Folder) });
export type FolderListResponse = z.infer<typeof FolderListResponse>;

const FOLDER_CODES: RequestCodes = { missing: "missing_field", invalid: "invalid_value" };
export const requestCodes = { folderCreate: FOLDER_CODES, folderList: FOLDER_CODES } satisfies Record<keyof typeof operations, RequestCodes>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  folderCreate: op(folderRoutes.folderCreate, { request: FolderCreateRequest, response: Folder }),
  folderList: op(folderRoutes.folderList, { request: FolderListRequest, response: FolderListResponse }),
} as const;
