/**
 * What this ffmpeg can do beyond its filter list (tools.ts has that): options that changed between
 * the 2018 static 4.1 fallback and Debian's 5.1. Learned once per ffmpeg binary and cached (the help
 * texts on disk too, between processes: tools-memo.ts).
 */
import { toolAnswer, type Tools } from "../tools.js";

export interface ExportCaps {
  xfade: boolean;
  /** `amix normalize=0` exists; old amix divides every input by the number of inputs. */
  amixNormalize: boolean;
  /** Frame timing option: `-fps_mode passthrough` (5.1+) or the older `-vsync passthrough`. */
  timing: string[];
  libass: boolean;
}

const cache = new Map<string, Promise<ExportCaps>>();

/** A help text ("" when ffmpeg fails to give it), remembered between processes for this binary. */
function helpText(ffmpeg: string, args: string[]): Promise<string> {
  return toolAnswer(ffmpeg, args).catch(() => "");
}

async function detect(tools: Tools): Promise<ExportCaps> {
  const [amix, long] = await Promise.all([helpText(tools.ffmpeg, ["-hide_banner", "-h", "filter=amix"]), helpText(tools.ffmpeg, ["-hide_banner", "-h", "long"])]);
  return {
    xfade: tools.hasXfade,
    amixNormalize: /\bnormalize\b/.test(amix),
    timing: /-fps_mode\b/.test(long) ? ["-fps_mode", "passthrough"] : ["-vsync", "passthrough"],
    libass: tools.hasLibass,
  };
}

export function exportCaps(tools: Tools): Promise<ExportCaps> {
  let p = cache.get(tools.ffmpeg);
  if (!p) {
    p = detect(tools);
    cache.set(tools.ffmpeg, p);
  }
  return p;
}
