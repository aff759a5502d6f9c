import fs from "node:fs";
import { Argument, type Command } from "commander";
import type { CommandModule } from "../types.js";
import { examples } from "../help-text.js";

export const SHELL_FILES: Record<string, string> = { bash: "mediagen.bash", zsh: "_mediagen", fish: "mediagen.fish" };

export function completionScript(shell: string): string {
  return fs.readFileSync(new URL(`../../../completions/${SHELL_FILES[shell]}`, import.meta.url), "utf8");
}

export const command: CommandModule = {
  register(completion, getContext) {
    completion
      .addArgument(new Argument("<shell>", "shell").choices(Object.keys(SHELL_FILES)))
      .action((shell: string, _opts: unknown, cmd: Command) => {
        getContext(cmd).io.stdout.write(completionScript(shell));
      });
    examples(completion, [
      "mediagen completion bash > ~/.local/share/bash-completion/completions/mediagen",
      "mediagen completion zsh > \"${fpath[1]}/_mediagen\"",
      "mediagen completion fish > ~/.config/fish/completions/mediagen.fish",
      "source <(mediagen completion bash)",
    ]);
  },
};
