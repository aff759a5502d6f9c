/** Hidden `mediagen __complete …`: what the completion scripts call. Prints nothing on any error. */
import type { Command } from "commander";
import type { CommandModule, CommandTree, ContextGetter } from "../command-context.js";
import type { CommandContext } from "../command-context.js";
import type { DynamicKind } from "../complete.js";

const DYNAMIC = ["models", "voices", "looks", "folders"];

export const command: CommandModule = {
  register(complete: Command, getContext: ContextGetter, tree: CommandTree) {
    const get = getContext as (cmd: Command) => CommandContext;
    complete
      .argument("<kind>", `words, or one of ${DYNAMIC.join(", ")}`)
      .argument("[words...]", "the words typed after `mediagen` (after --)")
      .allowUnknownOption()
      .helpOption(false)
      .action(async (kind: string, words: string[], _opts: unknown, cmd: Command) => {
        const outer = get(cmd);
        let ctx = outer;
        try {
          const [{ completeWords, typedGlobals }, { dynamicValues }] = await Promise.all([import("../complete.js"), import("../complete-values.js")]);
          // `mediagen --target hosted asset start --model <TAB>`: the models of the target on the line.
          const typed = kind === "words" ? typedGlobals(words) : {};
          if (Object.keys(typed).length) {
            const { CliContext } = await import("../context.js");
            ctx = new CliContext(outer.io, { ...outer.opts, ...typed }, outer.env, outer.version, outer.runtime);
          }
          let lines: string[];
          if (kind === "words") {
            const program = complete.parent!;
            await tree.loadAll();
            const result = completeWords(program, words);
            lines = "lines" in result ? result.lines : await dynamicValues(ctx, result.dynamic);
            if ("dynamic" in result) {
              const current = words[words.length - 1] ?? "";
              lines = lines.filter((l) => l.startsWith(current));
            }
          } else if (DYNAMIC.includes(kind)) {
            lines = await dynamicValues(ctx, kind as DynamicKind);
          } else {
            lines = [];
          }
          if (lines.length) ctx.io.stdout.write(lines.join("\n") + "\n");
        } catch (e) {
          ctx.trace?.(`__complete ${kind}: ${(e as Error).message}`);
        } finally {
          if (ctx !== outer) await ctx.close();
        }
      });
  },
};
