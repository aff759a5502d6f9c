/**
 * Child-process entry that runs the npm WASM build of espeak-ng. That build is GPL-3, so it is never
 * imported into mediagen's own process: the parent (tts-wasm-server.ts) spawns
 * `node tts-wasm-child.js <espeak module URL> <idle ms>` and writes one JSON request per line on
 * stdin: { id, args, text, out }. Each is spoken by a fresh instance of the module (compiled once),
 * so a WAV is the one a child of its own would write; the WAV goes to `out` and a line
 * { id, status, error? } to stdout. The child ends when stdin closes or after `idle ms` without a
 * request. It imports only node built-ins: it must start fast and load nothing of mediagen.
 */
import fs from "node:fs";
import readline from "node:readline";

// The build's file system makes an Error (with its stack) for every missing path it looks up while
// setting up its data files: a third of each instance's start-up went into stack traces nobody reads.
Error.stackTraceLimit = 0;

/** The little of WebAssembly this uses (the project's type libraries do not declare it). */
interface WasmModule {
  readonly __wasmModule: unique symbol;
}
interface WasmInstance {
  readonly __wasmInstance: unique symbol;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: object): Promise<WasmInstance>;
}

interface ChildRequest {
  id: number;
  args: string[];
  text: string;
  out: string;
}

interface EmscriptenFs {
  writeFile(path: string, data: string | Uint8Array): void;
  readFile(path: string): Uint8Array;
  createPath(parent: unknown, path: string, canRead?: boolean, canWrite?: boolean): unknown;
}

/**
 * Each instance unpacks the build's 445 data files into its own file system, calling createPath for
 * every file's directory: the same few directories again and again, each call walking the path and
 * making (and catching) an error for every part it looks up. The first answer for a directory is
 * kept and given again; nothing removes a directory while the instance runs. About a fifth of each
 * request's CPU; the WAV is the same.
 */
function rememberPaths(fs: EmscriptenFs): void {
  const create = fs.createPath.bind(fs);
  const made = new Map<string, unknown>();
  fs.createPath = (parent, dir, canRead, canWrite) => {
    if (typeof parent !== "string") return create(parent, dir, canRead, canWrite);
    const key = `${parent}\0${dir}\0${canRead}\0${canWrite}`;
    if (!made.has(key)) made.set(key, create(parent, dir, canRead, canWrite));
    return made.get(key);
  };
}

type Instantiate = (imports: object, done: (instance: WasmInstance, module: WasmModule) => void) => object;
type ESpeakFactory = (m: Record<string, unknown> & { instantiateWasm?: Instantiate }) => Promise<{ FS: EmscriptenFs }>;

/** Speaks one request in a fresh instance; the exit status and espeak's own messages. */
async function speak(factory: ESpeakFactory, compiled: WasmModule, req: ChildRequest): Promise<{ status: number; error?: string }> {
  let status = 0;
  const errors: string[] = [];
  let instance: { FS: EmscriptenFs };
  try {
    instance = await factory({
      arguments: [...req.args, "-w", "/out.wav", "-f", "/in.txt"],
      instantiateWasm: (imports, done) => {
        void Wasm.instantiate(compiled, imports).then((inst) => done(inst, compiled));
        return {};
      },
      preRun: [
        (m: { FS: EmscriptenFs }) => {
          rememberPaths(m.FS);
          m.FS.writeFile("/in.txt", req.text);
        },
      ],
      print: () => {},
      printErr: (line: string) => {
        // Emscripten's runtime notes are noise; espeak's own messages are what the parent needs.
        if (!line.includes("keepRuntimeAlive")) errors.push(line);
      },
      quit: (code: number, toThrow: unknown) => {
        status = code;
        throw toThrow;
      },
    });
  } catch (e) {
    return { status: status || 1, error: [...errors, e instanceof Error ? e.message : String(e)].join("\n") };
  }
  if (status !== 0) return { status, error: errors.join("\n") };
  fs.writeFileSync(req.out, instance.FS.readFile("/out.wav"));
  return { status: 0 };
}

async function main(): Promise<number> {
  const moduleUrl = process.argv[2];
  const idleMs = Number(process.argv[3] ?? 30_000);
  if (!moduleUrl) {
    process.stderr.write("usage: tts-wasm-child <espeak-ng module url> [idle ms]\n");
    return 2;
  }
  const factory = ((await import(moduleUrl)) as { default: ESpeakFactory }).default;
  const compiled = await Wasm.compile(fs.readFileSync(new URL("espeak-ng.wasm", moduleUrl)));
  let idle: NodeJS.Timeout | undefined;
  const waitIdle = (): void => {
    idle = setTimeout(() => process.exit(0), idleMs);
  };
  waitIdle();
  // Lines are read one at a time: the next request waits until this one's answer is written.
  for await (const line of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim() === "") continue;
    clearTimeout(idle);
    const req = JSON.parse(line) as ChildRequest;
    let answer: { status: number; error?: string };
    try {
      answer = await speak(factory, compiled, req);
    } catch (e) {
      answer = { status: 1, error: e instanceof Error ? e.message : String(e) };
    }
    process.stdout.write(`${JSON.stringify({ id: req.id, ...answer })}\n`);
    waitIdle();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
