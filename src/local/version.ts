import fs from "node:fs";

let cached: string | undefined;

/** The package version, read once from package.json (same relative place from src/ and dist/). */
export function mediagenVersion(): string {
  if (cached === undefined) {
    try {
      const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
        version?: string;
      };
      cached = pkg.version ?? "0.0.0";
    } catch {
      cached = "0.0.0";
    }
  }
  return cached;
}
