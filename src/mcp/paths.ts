/**
 * Where `download` may write: only inside the directories the user allowed with --allow-dir. A
 * requested directory is resolved against the first allowed one when relative, may not contain a
 * `..` segment, and must lie inside an allowed directory once every symbolic link on the way is
 * resolved: a link that points out of the allowed tree is refused like an absolute path outside it.
 */
import fs from "node:fs";
import path from "node:path";

export class PathRefused extends Error {
  override readonly name = "PathRefused";
  code = "path_not_allowed";
  readonly field = "dir";
}

/** Real paths of the allowed directories (created when missing, as --download does). */
export function allowedDirs(dirs: readonly string[], prepare: (dir: string) => string): string[] {
  return [...new Set(dirs.map((d) => fs.realpathSync(prepare(d))))];
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** The deepest existing ancestor of `p` (p itself when it exists), resolved through links. */
function realAncestor(p: string): { real: string; rest: string[] } {
  const rest: string[] = [];
  let cur = p;
  for (;;) {
    try {
      return { real: fs.realpathSync(cur), rest };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
      const parent = path.dirname(cur);
      if (parent === cur) throw e;
      rest.unshift(path.basename(cur));
      cur = parent;
    }
  }
}

/**
 * The directory `requested` names (default: the first allowed one), checked to be inside an allowed
 * directory; created, then checked again through its real path. Throws PathRefused otherwise.
 */
export function resolveDownloadDir(allowed: readonly string[], requested: string | undefined): string {
  if (!allowed.length) {
    throw new PathRefused("download is off: start `mediagen mcp` with --allow-dir <dir> to let it save files into <dir>");
  }
  const list = `allowed: ${allowed.join(", ")}`;
  if (requested === undefined || requested === "") return allowed[0]!;
  if (requested.includes("\0")) throw new PathRefused(`dir: not a path (${list})`);
  if (requested.split(/[\\/]+/).includes("..")) throw new PathRefused(`dir: ".." is not allowed in "${requested}" (${list})`);
  const abs = path.resolve(allowed[0]!, requested);
  const { real, rest } = realAncestor(abs);
  const target = path.join(real, ...rest);
  const root = allowed.find((a) => inside(a, target));
  if (!root) throw new PathRefused(`dir: ${abs} is outside the directories mediagen mcp may write to (${list})`);
  try {
    fs.mkdirSync(target, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw Object.assign(
      new PathRefused(`dir: cannot save into ${abs}: ${code === "EEXIST" || code === "ENOTDIR" ? "not a directory" : (code ?? (e as Error).message)}`),
      {
        code: "invalid_value",
      },
    );
  }
  // Created (or already there): its real path must still be inside (a link made meanwhile, say).
  const final = fs.realpathSync(target);
  if (!inside(root, final)) throw new PathRefused(`dir: ${abs} leads outside the directories mediagen mcp may write to (${list})`);
  return final;
}
