/**
 * The avatar endpoints' closed lists, in one place: the contract's schemas, the handlers and the CLI's
 * flag choices all read them here (plain data: `--help` loads no zod).
 */
/** Create's styles: the spec's five, and `raw`, which the service's docs also give (hosted-facts.md). */
export const AVATAR_CREATE_STYLES = ["iphone", "selfie", "podcast", "car", "conference", "raw"] as const;
export const AVATAR_EDIT_STYLES = ["selfie", "podcast", "car", "iphone", "conference", "raw"] as const;
/** 2K (default) or 4K: create by prompt and edit cost 2 or 4 credits. */
export const AVATAR_RESOLUTIONS = ["2K", "4K"] as const;
export const LOOK_FORMATS = ["vertical", "horizontal"] as const;
