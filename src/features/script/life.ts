/**
 * The life of script generation (see src/features/life.ts): a paid start that answers at once with
 * the text (0.1 credit per started minute, +0.1 with web search, +0.1 per URL). The answer names no
 * id, so the history names the script itself and keeps its text as a file.
 */
import { scriptCredits } from "../../contract/pricing.js";
import { num, str, type Body, type FeatureLife } from "../life.js";

/** The spec's default `duration` of a script request, in seconds. */
export const SCRIPT_DEFAULT_SECONDS = 60;

function scriptPrice(input: Body) {
  const duration = num(input.duration) ?? SCRIPT_DEFAULT_SECONDS;
  const urls = Array.isArray(input.urls) ? input.urls.length : 0;
  return {
    credits: scriptCredits(duration, input.webSearch === true, urls),
    exact: true,
    basis: `0.1 per started minute of ${duration} s${input.webSearch === true ? ", +0.1 for web search" : ""}${urls ? `, +0.1 per URL (${urls})` : ""}`,
  };
}

/** An id for a script the service does not name: the time and a few random letters. */
function scriptId(): string {
  return `script_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

export const scriptLife: FeatureLife = {
  operations: {
    scriptGenerate: {
      batch: { kind: "script" },
      makes: "script",
      effect: "paid start",
      what: () => "a script",
      price: scriptPrice,
      debited: (res) => num(res.cost),
      started: (input, res) => [
        {
          kind: "script",
          id: scriptId(),
          model: null,
          cost: num(res.cost) ?? null,
          status: "completed",
          ...(str(input.prompt) ? { prompt: String(input.prompt) } : {}),
          ...(typeof res.script === "string" ? { text: res.script } : {}),
        },
      ],
    },
  },
  jobs: {
    script: { kind: "script", noun: "script", idShape: /^script_/, idMadeUp: true, answerText: true },
  },
};
