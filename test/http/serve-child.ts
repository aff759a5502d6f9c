/** Runs the built CLI as a child process: `mediagen serve …` and the `local` admin commands. */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_POLL_INTERVAL, TEST_RATE_LIMIT } from "../helpers/poll-interval.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = path.join(ROOT, "bin/mediagen.js");

export function assertBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, "dist/cli/main.js")) || !fs.existsSync(path.join(ROOT, "dist/bundle/mediagen.js"))) {
    throw new Error("dist/ is missing: run `npm run build` (or `npm test`, which builds first)");
  }
}

/** The environment of a child: the test's home, no colour, nothing inherited that picks a target. */
export function childEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MEDIAGEN_HOME: home,
    NO_COLOR: "1",
    CI: "1",
    MEDIAGEN_POLL_INTERVAL: TEST_POLL_INTERVAL,
    MEDIAGEN_LOCAL_RATE_LIMIT: TEST_RATE_LIMIT,
    ...extra,
  };
  for (const k of ["MEDIAGEN_TARGET", "MEDIAGEN_BASE_URL", "MEDIAGEN_API_KEY", "MEDIAGEN_PROFILE", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]) {
    if (!(k in extra)) delete env[k];
  }
  return env;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `mediagen local keys create --plan … --credits … --json` → the new key. */
export async function createKey(env: NodeJS.ProcessEnv, plan = "PRO", credits = 100): Promise<string> {
  const r = await runCli(["local", "keys", "create", "--plan", plan, "--credits", String(credits), "--json"], env);
  if (r.code !== 0) throw new Error(`local keys create failed (${r.code}): ${r.stderr}`);
  return (JSON.parse(r.stdout) as { api_key: string }).api_key;
}

export interface ServeChild {
  proc: ChildProcess;
  baseUrl: string;
  /** The first stdout line, as printed. */
  firstLine: string;
  stdout(): string;
  stderr(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `mediagen serve --port 0 --json` and resolves once it printed its base URL. */
export function startServe(env: NodeJS.ProcessEnv, extraArgs: string[] = []): Promise<ServeChild> {
  const proc = spawn(process.execPath, [BIN, "serve", "--port", "0", "--json", ...extraArgs], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`serve did not print its base URL in time; stderr: ${err}`));
    }, 15_000);
    proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    proc.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      const firstLine = out.slice(0, nl);
      try {
        const { base_url } = JSON.parse(firstLine) as { base_url: string };
        resolve({
          proc,
          baseUrl: base_url,
          firstLine,
          stdout: () => out,
          stderr: () => err,
          stop: (signal = "SIGTERM") => {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
            return exited;
          },
        });
      } catch {
        reject(new Error(`serve printed something other than JSON first: ${firstLine}`));
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before listening; stderr: ${err}`));
    });
  });
}
