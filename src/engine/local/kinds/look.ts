import type { JobKind } from "../types.js";

export const lookKinds: Record<string, JobKind> = {};
