/**
 * What running a media tool taught us (`ffmpeg -version`, `ffmpeg -filters`, `espeak-ng --version`),
 * remembered on disk between processes. Every process that renders needs those facts, and learning
 * them runs three tools (a quarter of a second of CPU); a render command, a worker or `serve` would
 * pay it on each start.
 *
 * An answer is keyed by the binary's identity (its real path, device, inode, size, modified and
 * changed times) and the arguments: a binary replaced or upgraded in place is asked again. The file
 * lives in a directory of this user's under the temp dir (mode 0700; one owned by someone else or
 * open to others is not used: another user could otherwise plant answers). It holds tool output
 * only, never paths of the user's media. Any problem reading or writing it means asking the tool,
 * as if there were no memo.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const FILE = "tools-v1.json";
const MAX_ENTRIES = 32;
const MAX_BYTES = 1024 * 1024;

interface Entry {
  key: string;
  out: string;
}

/**
 * This user's private directory under the temp dir (the memo, and executable copies of npm tools:
 * npm-binary.ts), or undefined when it is not safe to use.
 */
export function memoDir(): string | undefined {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  let dir = "";
  try {
    // Without uids (Windows) the temp dir is the user's own already; the name only keeps users apart.
    dir = path.join(os.tmpdir(), `mediagen-${uid ?? os.userInfo().username}`);
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if (!dir || (e as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
  }
  try {
    const st = fs.lstatSync(dir);
    if (!st.isDirectory()) return undefined;
    if (uid !== undefined && (st.uid !== uid || (st.mode & 0o077) !== 0)) return undefined;
  } catch {
    return undefined;
  }
  return dir;
}

/** The binary's identity: a new build or a reinstall at the same path has another. */
function identity(bin: string): string | undefined {
  try {
    const real = fs.realpathSync(bin);
    const st = fs.statSync(real);
    return [real, st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs].join(":");
  } catch {
    return undefined;
  }
}

function readEntries(file: string): Entry[] {
  try {
    const st = fs.statSync(file);
    if (st.size > MAX_BYTES) return [];
    const data = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
    if (!Array.isArray(data)) return [];
    return data.filter((e): e is Entry => typeof e === "object" && e !== null && typeof e.key === "string" && typeof e.out === "string");
  } catch {
    return [];
  }
}

function writeEntries(dir: string, entries: Entry[]): void {
  const file = path.join(dir, FILE);
  const tmp = path.join(dir, `.${FILE}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(tmp, JSON.stringify(entries), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * The stdout of `bin args`: remembered from an earlier run of the same binary, or from `run` (whose
 * answer is then remembered). A failing `run` is not remembered: its error reaches the caller.
 */
export async function rememberedOutput(bin: string, args: readonly string[], run: () => Promise<string>): Promise<string> {
  const id = identity(bin);
  const dir = id ? memoDir() : undefined;
  if (!id || !dir) return run();
  const key = `${id}\u0000${args.join("\u0000")}`;
  const found = readEntries(path.join(dir, FILE)).find((e) => e.key === key);
  if (found) return found.out;
  const out = await run();
  // Read again: another process may have added its own answers meanwhile. The newest entries stay.
  const entries = readEntries(path.join(dir, FILE)).filter((e) => e.key !== key);
  entries.push({ key, out });
  writeEntries(dir, entries.slice(-MAX_ENTRIES));
  return out;
}
