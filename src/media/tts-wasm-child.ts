/**
 * Child-process entry that runs the npm WASM build of espeak-ng. That build is GPL-3, so it is never
 * imported into mediagen's own process: the parent spawns `node tts-wasm-child.js <espeak module URL>`
 * and sends one JSON request on stdin: { args, text, out }. The WAV is written to `out`.
 * It imports only node built-ins: the child must start fast and load nothing of mediagen.
 */
import fs from "node:fs";

interface ChildRequest {
  args: string[];
  text: string;
  out: string;
}

interface EmscriptenFs {
  writeFile(path: string, data: string | Uint8Array): void;
  readFile(path: string): Uint8Array;
}

type ESpeakFactory = (m: Record<string, unknown>) => Promise<{ FS: EmscriptenFs }>;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function main(): Promise<number> {
  const moduleUrl = process.argv[2];
  if (!moduleUrl) {
    process.stderr.write("usage: tts-wasm-child <espeak-ng module url>\n");
    return 2;
  }
  const req = JSON.parse(await readStdin()) as ChildRequest;
  const factory = ((await import(moduleUrl)) as { default: ESpeakFactory }).default;
  let status = 0;
  const errors: string[] = [];
  const instance = await factory({
    arguments: [...req.args, "-w", "/out.wav", "-f", "/in.txt"],
    preRun: [
      (m: { FS: EmscriptenFs }) => {
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
  if (status !== 0) {
    process.stderr.write(errors.join("\n") + "\n");
    return status;
  }
  fs.writeFileSync(req.out, instance.FS.readFile("/out.wav"));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
