import type { JobKind } from "../types.js";
import { webhookKinds } from "./webhook.js";
import { assetKinds } from "./asset.js";
import { lookKinds } from "./look.js";

/** Every kind of background job, by name. */
export const jobKinds: Record<string, JobKind> = {
  ...webhookKinds,
  ...assetKinds,
  ...lookKinds,
};
