/**
 * Webhook URLs under the request's address policy: on a remote caller's behalf (a default `serve`)
 * a webhook may only go to a public address, as media fetches may only come from one; in process,
 * and under `serve --allow-private-urls`, any address (`mediagen listen` and `--webhook-listen`
 * receive on 127.0.0.1). Checked when the request names the URL, before anything is debited.
 */
import { webhookAddressProblem } from "../media/address-policy.js";
import type { RequestContext } from "./types.js";

export async function checkWebhookAddress(
  ctx: Pick<RequestContext, "allowPrivateNetwork">,
  url: string | null | undefined,
  error: (why: string) => Error,
): Promise<void> {
  if (ctx.allowPrivateNetwork || !url) return;
  const why = await webhookAddressProblem(url);
  if (why) throw error(why);
}
