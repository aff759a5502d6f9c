import type { JobKind } from "../types.js";

export const webhookKinds: Record<string, JobKind> = {};
