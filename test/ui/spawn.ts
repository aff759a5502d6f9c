/** A built `mediagen <args>` as a real process, its output read line by line (issue 27's tests). */
import readline from "node:readline";
import { execa, type ResultPromise } from "execa";
import { BIN } from "../cli/helpers.js";
import { runEnv } from "../helpers/cli.js";

export interface Child {
  /** stderr lines. */
  lines: string[];
  stdout: string[];
  next(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

export function spawnCli(home: string, args: string[]): Child {
  const child: ResultPromise = execa(process.execPath, [BIN, ...args], { env: runEnv(home), extendEnv: false, reject: false, stdin: "ignore", timeout: 180_000 });
  const stdout: string[] = [];
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  const push = (into: string[]) => (l: string) => {
    into.push(l);
    if (into !== stdout) lines.push(l);
    for (const w of waiters.splice(0)) w();
  };
  readline.createInterface({ input: child.stdout! }).on("line", push(stdout));
  readline.createInterface({ input: child.stderr! }).on("line", push([]));
  return {
    lines,
    stdout,
    next(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`mediagen ${args.join(" ")}: no matching line; stdout ${stdout.join("\n")} stderr ${lines.join("\n")}`)),
          timeoutMs,
        );
        const check = () => {
          const l = [...stdout, ...lines].find(match);
          if (l !== undefined) {
            clearTimeout(timer);
            resolve(l);
          } else waiters.push(check);
        };
        check();
      });
    },
    async stop() {
      child.kill("SIGINT");
      await child;
    },
  };
}
