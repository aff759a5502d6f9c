/**
 * POST /script/generate on the local instance. The request's shape was checked at the door
 * (contract.ts); the simulate header is read, the price is debited in the transaction that records the request, the script is
 * written outside any transaction, and the row is ended `done`, or `failed` with the debit refunded
 * exactly once (SCRIPT_GENERATION_FAILED, or the code of `X-Local-Simulate: fail:<CODE>`).
 */
import { fromMilli, toMilli } from "../../../contract/credits.js";
import { scriptCredits } from "../../../contract/pricing.js";
import { ApiError } from "../../../engine/errors.js";
import type { HandlerTable, LocalInstanceApi, RequestContext } from "../../../local/types.js";
import { parseSimulate, simulatedCustomCode } from "../../asset/emulator/public/simulate.js";
import type { ScriptGenerateRequest, ScriptGenerateResponse } from "../contract.js";
import { scriptPlanOf } from "./validate.js";
import { PAGE_TIMEOUT_MS } from "./page.js";
import { LLM_TIMEOUT_MS, llmConfigFrom } from "./llm.js";
import { localDebug } from "../../../local/debug.js";

export const FAILURE_CODE = "SCRIPT_GENERATION_FAILED";
/** Beyond the longest a request may write (pages, then the model), before its row counts as dead. */
const STALE_MARGIN_MS = 5 * 60_000;

const debug = (text: string): void => localDebug(text);

/** The longest one request may spend writing: the pages (read at once), then the model. */
function writingBudgetMs(): number {
  let llm = 0;
  try {
    llm = llmConfigFrom()?.timeoutMs ?? 0;
  } catch {
    llm = LLM_TIMEOUT_MS;
  }
  return PAGE_TIMEOUT_MS + llm;
}

/** Ends a row `failed` and refunds its debit; a no-op for a row already ended (the refund is once per ref). */
function failRow(instance: LocalInstanceApi, spaceId: string, id: string, costMilli: number, code: string, message: string): void {
  instance.tx(() => {
    const r = instance.db
      .prepare(`UPDATE scripts SET status = 'failed', error_code = ?, error_message = ?, updated_at = ? WHERE id = ? AND status = 'writing'`)
      .run(code, message, instance.nowIso(), id);
    if (r.changes > 0) instance.ledger.refund(spaceId, costMilli, id, "script generate failed");
  });
}

/**
 * Requests whose process died while writing (a crash, a kill) keep their debit until someone looks:
 * every script request first fails and refunds the rows past their deadline.
 */
export function sweepDeadScripts(instance: LocalInstanceApi): number {
  const dead = instance.db.prepare(`SELECT id, space_id, cost_milli FROM scripts WHERE status = 'writing' AND deadline < ?`).all(instance.clock.now()) as {
    id: string;
    space_id: string;
    cost_milli: number;
  }[];
  for (const row of dead) {
    failRow(instance, row.space_id, row.id, row.cost_milli, FAILURE_CODE, "the request ended before its script was written");
  }
  return dead.length;
}

async function scriptGenerate(ctx: RequestContext, input: ScriptGenerateRequest): Promise<ScriptGenerateResponse> {
  const simulate = parseSimulate(ctx.simulate);
  const plan = scriptPlanOf(input);
  const cost = scriptCredits(plan.duration, plan.webSearch, plan.urls.length);
  const costMilli = toMilli(cost);
  const { instance, space } = ctx;
  const id = instance.ids.prefixed("scr_");

  sweepDeadScripts(instance);
  instance.tx(() => {
    if (!instance.ledger.debit(space.id, costMilli, id, "script generate")) {
      const available = fromMilli(instance.ledger.balance(space.id));
      throw ApiError.of("INSUFFICIENT_CREDITS", "Insufficient credits", { required: cost, available });
    }
    const now = instance.nowIso();
    instance.db
      .prepare(
        `INSERT INTO scripts (id, space_id, prompt, duration, urls, web_search, cost_milli, status, deadline, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'writing', ?, ?, ?)`,
      )
      .run(
        id,
        space.id,
        plan.prompt,
        plan.duration,
        JSON.stringify(plan.urls),
        plan.webSearch ? 1 : 0,
        costMilli,
        instance.clock.now() + writingBudgetMs() + STALE_MARGIN_MS,
        now,
        now,
      );
  });

  if (simulate) {
    const code = simulatedCustomCode(simulate) ?? FAILURE_CODE;
    const message = "Script generation failed (simulated)";
    failRow(instance, space.id, id, costMilli, code, message);
    throw ApiError.of(code, message, { status: 500, shape: "code" });
  }

  try {
    const { composeScript } = await import("./compose.js");
    const written = await composeScript(plan, { fetch: { allowPrivateNetwork: ctx.allowPrivateNetwork }, log: debug });
    const answer: ScriptGenerateResponse = { script: written.script, cost, extractedImages: written.extractedImages };
    const done = instance.tx(() => {
      const changes = instance.db
        .prepare(`UPDATE scripts SET status = 'done', writer = ?, script = ?, extracted_images = ?, updated_at = ? WHERE id = ? AND status = 'writing'`)
        .run(written.writer, written.script, JSON.stringify(written.extractedImages), instance.nowIso(), id).changes;
      // Paid for and written: kept with the text, so a batch that lost the answer reads it back.
      if (changes > 0) ctx.keepStart?.(answer);
      return changes;
    });
    // Past its deadline another request has already failed and refunded it: the script is not paid for.
    if (done === 0) throw new Error("the request overran its deadline and was refunded");
    return answer;
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    debug(`script ${id} failed: ${reason}`);
    const message = `Script generation failed: ${reason}`;
    try {
      failRow(instance, space.id, id, costMilli, FAILURE_CODE, message);
    } catch (refundError) {
      // The row stays `writing`: the sweep refunds it once its deadline passes.
      debug(`script ${id}: refund deferred to the sweep: ${String(refundError)}`);
    }
    throw ApiError.of(FAILURE_CODE, message, { status: 500, shape: "code" });
  }
}

export const scriptHandlers: HandlerTable = {
  scriptGenerate: (ctx, input) => scriptGenerate(ctx, input),
};
