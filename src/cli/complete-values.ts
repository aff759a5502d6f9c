/** Dynamic completion values (models, voices, looks, folders) from the engine, cached for 10 minutes. */
import fs from "node:fs";
import path from "node:path";
import type { CommandContext } from "./command-context.js";
import type { Engine } from "../engine/engine.js";
import { cacheDir } from "../config/paths.js";
import type { DynamicKind } from "./complete.js";

export const CACHE_TTL_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 3_000;

interface CacheFile {
  at: number;
  lines: string[];
}

async function fetchLines(engine: Engine, kind: DynamicKind): Promise<string[]> {
  const tabbed = (id: string, desc?: string) => (desc ? `${id}\t${desc}` : id);
  switch (kind) {
    case "models":
      return (await engine.assetModels({})).models.map((m) => tabbed(m.name, (m as { label?: string }).label));
    case "voices":
      return (await engine.voiceList({})).map((v) => tabbed(v.id, [v.name, v.language].filter(Boolean).join(", ")));
    case "looks":
      return (await engine.avatarList({})).map((l) => tabbed(l.id, `${l.avatar_name} / ${l.look_name}`));
    case "folders":
      return (await engine.folderList({})).folders.map((f) => tabbed(f.id, `${f.name} (${f.type})`));
    default:
      return [];
  }
}

/**
 * Ids from this machine's history, most recent first (no cache: the file is local and changes with
 * every start): `jobs` are the ids with something to wait for or download (their life has a status
 * or a kept result), `videos` the videos made (a generation's video_id, a duplicate).
 */
async function historyLines(ctx: CommandContext, kind: "jobs" | "videos"): Promise<string[]> {
  const [{ readHistory }, { jobLife }] = await Promise.all([import("./journal.js"), import("../features/lives.js")]);
  const rows = readHistory(ctx.home);
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const r of rows) {
    const life = jobLife(r.kind);
    const id = kind === "jobs" ? (life.status || r.saved ? r.id : undefined) : r.kind === "video" ? r.id : r.kind === "generation" ? r.video_id : undefined;
    if (!id || seen.has(id)) continue;
    seen.add(id);
    lines.push(`${id}\t${kind === "jobs" ? `${life.noun}, ${r.status}` : `video${r.kind === "generation" ? ` of ${r.id}` : " (copy)"}`}`);
  }
  return lines;
}

/** Values of a kind for the current target, from a 10-minute cache or the engine. */
export async function dynamicValues(ctx: CommandContext, kind: DynamicKind, now = ctx.runtime.clock.now()): Promise<string[]> {
  if (kind === "jobs" || kind === "videos") return historyLines(ctx, kind);
  const { config } = ctx.resolve();
  const crypto = await import("node:crypto");
  const scope = crypto
    .createHash("sha256")
    .update(JSON.stringify([config.profile, config.target, config.baseUrl ?? "", config.keySource, ctx.env.MEDIAGEN_API_KEY ?? ""]))
    .digest("hex")
    .slice(0, 16);
  const file = path.join(cacheDir(config.home), `complete-${kind}-${scope}.json`);
  let cached: CacheFile | undefined;
  try {
    cached = JSON.parse(fs.readFileSync(file, "utf8")) as CacheFile;
  } catch {
    cached = undefined;
  }
  if (cached && now - cached.at < CACHE_TTL_MS && Array.isArray(cached.lines)) return cached.lines;

  const engine = await ctx.engine();
  let timer: NodeJS.Timeout | undefined;
  const lines = await Promise.race([
    fetchLines(engine, kind),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), FETCH_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Math.random().toString(16).slice(2, 10)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ at: now, lines } satisfies CacheFile));
  fs.renameSync(tmp, file);
  return lines;
}
