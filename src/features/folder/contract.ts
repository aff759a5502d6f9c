import { z } from "zod";
import { op } from "../../contract/operation.js";
import { Timestamp } from "../../contract/common.js";

export const FolderType = z.enum(["assets", "videos"]);
export type FolderType = z.infer<typeof FolderType>;

export const Folder = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: FolderType,
  parent_folder_id: z.string().nullable(),
  created_at: Timestamp,
});
export type Folder = z.infer<typeof Folder>;

export const FolderCreateRequest = z.looseObject({
  name: z.string().optional(),
  type: z.string().optional(),
  parent_folder_id: z.string().nullable().optional(),
});
export type FolderCreateRequest = z.infer<typeof FolderCreateRequest>;

export const FolderListRequest = z.looseObject({ type: z.string().optional() });
export type FolderListRequest = z.infer<typeof FolderListRequest>;

export const FolderListResponse = z.looseObject({ folders: z.array(Folder) });
export type FolderListResponse = z.infer<typeof FolderListResponse>;

/** The operations of this resource: method, path, success status, request and response schemas. */
export const operations = {
  folderCreate: op({ method: "POST", path: "/folder/create", status: 201, request: FolderCreateRequest, response: Folder, summary: "Create a folder" }),
  folderList: op({ method: "GET", path: "/folder/list", status: 200, request: FolderListRequest, response: FolderListResponse, summary: "List folders" }),
} as const;
