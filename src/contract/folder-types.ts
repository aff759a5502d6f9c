/** The folder types (spec: `assets`, the default, or `videos`), in one module without zod. */
export const FOLDER_TYPES = ["assets", "videos"] as const;
export type FolderTypeName = (typeof FOLDER_TYPES)[number];
