/**
 * `mediagen whoami`: the target, the key in use (masked) and, where the target can tell, its
 * space, plan and balance (the local instance can; the hosted API has no account endpoint, so it
 * says so). The same report as `auth status`, which also checks the key.
 */
import type { Command } from "commander";
import { CliError, EXIT } from "../types.js";
import type { CommandModule, ContextGetter } from "../command-context.js";
import { examples } from "../help-text.js";

export const command: CommandModule = {
  register(whoami: Command, getContext: ContextGetter) {
    whoami.action(async (_opts: unknown, cmd: Command) => {
      const ctx = getContext(cmd);
      const { statusReport, statusLines } = await import("./auth.js");
      const { report, exit, code } = await statusReport(ctx);
      // `credits -q` is for a script that wants the balance; `whoami -q` the space.
      const asCredits = cmd.parent?.args[0] === "credits";
      ctx.print(report, statusLines, (r) => (asCredits ? (r.balance === null ? [] : [String(r.balance)]) : [r.space?.id ?? r.target]));
      if (asCredits && ctx.opts.quiet && !ctx.opts.json && report.balance === null && exit === EXIT.ok)
        ctx.io.warn(`No balance to print: ${report.account_note ?? "the target does not tell it"}`);
      if (exit !== EXIT.ok) throw new CliError(`whoami: ${report.message}`, exit, code || `key_${report.status}`);
    });
    examples(whoami, ["mediagen whoami", "mediagen whoami --json | jq .balance", "mediagen whoami --target hosted"]);
  },
};
