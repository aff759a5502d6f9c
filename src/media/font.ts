/**
 * The font every render uses, passed to drawtext as `fontfile=` so text renders even in static
 * ffmpeg builds without a usable fontconfig. The bundled DejaVu Sans comes first: it is the same
 * file on every machine, so the same inputs draw the same pixels everywhere.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { readEnv, type Env } from "../config/env.js";

const SYSTEM_FONTS = [
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/TTF/DejaVuSans.ttf",
  "/Library/Fonts/DejaVuSans.ttf",
  "C:\\Windows\\Fonts\\DejaVuSans.ttf",
];

function bundledFont(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve("dejavu-fonts-ttf/package.json");
    return path.join(path.dirname(pkg), "ttf", "DejaVuSans.ttf");
  } catch {
    return undefined;
  }
}

/** Candidate font files in order of preference: MEDIAGEN_FONT, the bundled font, system copies. */
export function fontCandidates(env?: Env): string[] {
  const list: string[] = [];
  const chosen = readEnv("MEDIAGEN_FONT", env);
  if (chosen) list.push(chosen);
  const bundled = bundledFont();
  if (bundled) list.push(bundled);
  list.push(...SYSTEM_FONTS);
  return list;
}

/** The first candidate that exists, or undefined (then renders carry no text). */
export function findFont(env?: Env): string | undefined {
  for (const f of fontCandidates(env)) {
    try {
      if (fs.statSync(f).isFile()) return path.resolve(f);
    } catch {
      // try the next one
    }
  }
  return undefined;
}
