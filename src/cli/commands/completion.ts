/**
 * `mediagen completion bash|zsh|fish`: prints the script of completions/ with the path of this
 * mediagen filled in, so completion works even where `mediagen` is not on PATH (run through `npx`):
 * the script asks the mediagen on PATH first, then the one that printed it, then `npx mediagen`.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Argument, type Command } from "commander";
import type { CommandModule } from "../command-context.js";
import { examples } from "../help-text.js";

export const SHELL_FILES: Record<string, string> = { bash: "mediagen.bash", zsh: "_mediagen", fish: "mediagen.fish" };

/**
 * A file of the package (its root holds package.json), found from this module up: the module sits at
 * src/cli/commands/, dist/cli/commands/ or in the bundle's dist/bundle/, at different depths.
 */
function packageFile(rel: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.join(dir, rel);
}

/** The script as installed in completions/ (its mediagen path left empty). */
export function completionScript(shell: string): string {
  return fs.readFileSync(packageFile(`completions/${SHELL_FILES[shell]}`), "utf8");
}

/** A word in single quotes for the shell (`'` itself closed, escaped and reopened; fish escapes it). */
function quoted(shell: string, s: string): string {
  return shell === "fish" ? `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'` : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The script with this mediagen's entry point (bin/mediagen.js) and node filled in. */
export function filledScript(shell: string, bin = packageFile("bin/mediagen.js"), node = process.execPath): string {
  const set = (name: string, value: string) => (shell === "fish" ? `set -g ${name} ${quoted(shell, value)}` : `${name}=${quoted(shell, value)}`);
  return completionScript(shell)
    .replace(shell === "fish" ? 'set -g __mediagen_bin ""' : '__mediagen_bin=""', set("__mediagen_bin", bin))
    .replace(shell === "fish" ? 'set -g __mediagen_node ""' : '__mediagen_node=""', set("__mediagen_node", node));
}

export const command: CommandModule = {
  register(completion, getContext) {
    completion.addArgument(new Argument("<shell>", "shell").choices(Object.keys(SHELL_FILES))).action((shell: string, _opts: unknown, cmd: Command) => {
      getContext(cmd).io.stdout.write(filledScript(shell));
    });
    examples(completion, [
      "mediagen completion bash > ~/.local/share/bash-completion/completions/mediagen",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's own ${fpath[1]}, printed for the user's shell.
      'mediagen completion zsh > "${fpath[1]}/_mediagen"',
      "mediagen completion fish > ~/.config/fish/completions/mediagen.fish",
      "source <(mediagen completion bash)",
      "source <(npx mediagen completion bash)",
    ]);
  },
};
