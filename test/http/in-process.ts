/**
 * The `local` admin commands the HTTP tests need beside a `serve` child, run in this process
 * (test/helpers/cli.ts) instead of as a process of their own each: only `serve` itself is the
 * subject there, and a key made in process lands in the same home's instance the child serves.
 */
import { runInProcess } from "../helpers/cli.js";

/** `mediagen local keys create --plan … --credits … --json` on `home` → the new key. */
export async function createKeyInProcess(home: string, plan = "PRO", credits = 100): Promise<string> {
  const r = await runInProcess(["local", "keys", "create", "--plan", plan, "--credits", String(credits), "--json"], { home });
  if (r.exitCode !== 0) throw new Error(`local keys create failed (${r.exitCode}): ${r.stderr}`);
  return r.json<{ api_key: string }>().api_key;
}
