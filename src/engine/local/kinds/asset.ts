import type { JobKind } from "../types.js";

export const assetKinds: Record<string, JobKind> = {};
