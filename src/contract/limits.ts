/**
 * Bounds the local instance puts on free text the spec leaves unbounded (docs/local-differences.md),
 * so that one request cannot make every later listing carry megabytes.
 */

/** Names and places (folders, avatars, looks): characters. */
export const NAME_MAX = 255;
/** Prompts of models and endpoints that state no cap of their own: characters (the spec's script cap). */
export const PROMPT_MAX = 10_000;
