/**
 * `mediagen ui`: a local web dashboard of what this machine made (the history, on any target) and
 * of the local instance, on 127.0.0.1. The same pages are at `/` of `mediagen serve`. The pages
 * (src/ui/) and SQLite load only when the command runs.
 */
import type { Command } from "commander";
import { spawn } from "node:child_process";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { CliError, EXIT } from "../types.js";
import type { CommandModule } from "../command-context.js";
import { parsePort } from "./serve.js";
import { defineFlags, type FlagInput } from "../flags.js";

const UI_FLAGS = defineFlags({
  port: { flag: "--port <port>", type: "string", default: "4020", to: parsePort, help: "port on 127.0.0.1; 0 picks a free one" },
  open: { flag: "--open", type: "boolean", help: "open the dashboard in the browser" },
});

/** Opens the URL in the desktop's browser; says so when it cannot (no desktop, no opener). */
function openBrowser(ctx: CommandContext, url: string): void {
  const [cmd, args] = process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
  try {
    const child = spawn(cmd, args as string[], { stdio: "ignore", detached: true });
    child.on("error", () => ctx.io.warn(`Could not open a browser (${cmd}); open ${url} yourself.`));
    child.unref();
  } catch {
    ctx.io.warn(`Could not open a browser; open ${url} yourself.`);
  }
}

export const command: CommandModule = {
  register(ui: Command, getContext) {
    UI_FLAGS.addTo(ui).action(async (raw: FlagInput<typeof UI_FLAGS>, cmd: Command) => {
      const ctx = getContext(cmd);
      const flags = UI_FLAGS.values(raw);
      const port = flags.port!;
      const [{ openLocalInstance }, { startUiServer }] = await Promise.all([import("../../features/local.js"), import("../../ui/server.js")]);
      const instance = openLocalInstance({ home: ctx.home, worker: "detached" });
      let running: Awaited<ReturnType<typeof startUiServer>>;
      try {
        running = await startUiServer({ instance, home: ctx.home, port });
      } catch (e) {
        await instance.close();
        if ((e as NodeJS.ErrnoException).code === "EADDRINUSE") {
          throw new CliError(`127.0.0.1:${port} is already in use; choose another --port (0 picks a free one)`, EXIT.error, "address_in_use");
        }
        throw e;
      }
      const stopped = ctx.runtime.signals.nextStop();
      // With this run's secret: only who can read this output opens the pages.
      const url = running.url;
      if (ctx.opts.json) ctx.io.out(JSON.stringify({ url }));
      else ctx.io.out(url);
      ctx.io.info("The dashboard of this machine (only this machine can open it). Ctrl-C stops.");
      if (flags.open) openBrowser(ctx, url);
      await stopped;
      await running.close();
      await instance.close();
    });
    examples(ui, [
      "mediagen ui --open",
      'mediagen ui --port 0 --json     # prints {"url": …} once listening',
      "mediagen serve   # the same pages at http://127.0.0.1:4010/",
    ]);
  },
};
