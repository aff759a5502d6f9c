/** How `auth login` reads the key: never from a terminal that would echo it. */
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readKey } from "../../src/cli/commands/auth.js";
import { EXIT } from "../../src/cli/types.js";

const KEY = "mg_live_" + "ab".repeat(32);

function io(opts: { stdinTTY: boolean; canPrompt: boolean; text?: string }) {
  let read = false;
  let sent = false;
  const stdin = Object.assign(
    new Readable({
      read() {
        read = true;
        if (!sent) this.push(Buffer.from(opts.text ?? ""));
        sent = true;
        this.push(null);
      },
    }),
    { isTTY: opts.stdinTTY },
  );
  return { io: { stdin, stderr: new PassThrough(), canPrompt: opts.canPrompt }, wasRead: () => read };
}

describe("readKey", () => {
  it("--with-key with a pipe reads stdin (trimmed), without prompting", async () => {
    const { io: i } = io({ stdinTTY: false, canPrompt: false, text: KEY + "\n" });
    let prompted = false;
    expect(await readKey(i, true, async () => ((prompted = true), "x"))).toBe(KEY);
    expect(prompted).toBe(false);
  });

  it("--with-key with a terminal on stdin uses the hidden prompt, never an echoing read", async () => {
    const { io: i, wasRead } = io({ stdinTTY: true, canPrompt: true, text: "typed-in-the-clear" });
    expect(await readKey(i, true, async () => ` ${KEY} `)).toBe(KEY);
    expect(wasRead()).toBe(false);
  });

  it("--with-key with a terminal on stdin and no prompting allowed: usage error saying to pipe the key", async () => {
    const { io: i, wasRead } = io({ stdinTTY: true, canPrompt: false });
    await expect(readKey(i, true, async () => KEY)).rejects.toMatchObject({ exitCode: EXIT.usage, message: expect.stringMatching(/pipe the key in/) });
    expect(wasRead()).toBe(false);
  });

  it("without --with-key: the hidden prompt when allowed, a usage error otherwise", async () => {
    expect(await readKey(io({ stdinTTY: true, canPrompt: true }).io, false, async () => KEY)).toBe(KEY);
    await expect(readKey(io({ stdinTTY: false, canPrompt: false }).io, false, async () => KEY)).rejects.toMatchObject({ exitCode: EXIT.usage });
  });
});
