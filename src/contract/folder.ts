import { z } from "zod";
import { Timestamp } from "./common.js";

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
