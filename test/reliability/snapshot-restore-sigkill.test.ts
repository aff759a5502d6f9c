/**
 * A snapshot restore killed with SIGKILL at every point of it (a real child process over the built
 * dist/, stopped at each step and killed there): the next start leaves the old instance or the new
 * one, whole — the database's spaces and the media files always from the same side — and no marker,
 * staging or old folder behind. Killed after its commit, the restore is finished by the next start.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { openLocalInstance, type LocalInstance } from "../../src/features/local.js";
import type { RestoreStep } from "../../src/local/snapshot-restore.js";
import { tempHome } from "../helpers/local.js";
import { requireBuilt, startFixture, type Fixture } from "./fixtures/processes.js";

const MEDIA_FILES = 40;
const running: Fixture[] = [];
beforeAll(requireBuilt);
afterEach(() => {
  for (const f of running.splice(0)) if (f.child.exitCode === null && f.child.signalCode === null) f.child.kill("SIGKILL");
});

function writeMedia(inst: LocalInstance, side: string): void {
  for (let i = 0; i < MEDIA_FILES; i++) {
    const dir = path.join(inst.mediaDir, `${side}-${i % 4}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${i}.bin`), `${side} ${i}`);
  }
}

/** A home whose snapshot "snap" has 2 spaces and media "new-*", and whose live instance 3 spaces and media "old-*". */
function template(): string {
  const home = tempHome();
  const inst = openLocalInstance({ home, worker: "none" });
  inst.createSpace({ plan: "PRO", credits: 10 });
  inst.createSpace({ plan: "PRO", credits: 20 });
  writeMedia(inst, "new");
  return home;
}

function copyHome(from: string): string {
  const to = tempHome();
  fs.cpSync(from, to, { recursive: true });
  return to;
}

type Side = "old" | "new";

/** Which whole instance the home holds now (opening it runs the start-up recovery). */
async function sideOf(home: string): Promise<Side> {
  const inst = openLocalInstance({ home, worker: "none" });
  try {
    const spaces = inst.listSpaces().length;
    const media = fs
      .readdirSync(inst.mediaDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "utf8").split(" ")[0]);
    const sides = new Set(media);
    expect(media.length, "every media file of one side").toBe(MEDIA_FILES);
    expect(sides.size, `media of one side only: ${[...sides].join(", ")}`).toBe(1);
    const side = [...sides][0] as Side;
    expect(spaces, `the database agrees with the ${side} media`).toBe(side === "new" ? 2 : 3);
    const left = fs.readdirSync(inst.localDir).filter((n) => n.startsWith(".restore") || n.startsWith("restore.commit"));
    expect(left, "no marker, staging or old folder left").toEqual([]);
    return side;
  } finally {
    await inst.close();
  }
}

describe("snapshot restore killed with SIGKILL", () => {
  let base: string;
  beforeAll(async () => {
    const home = template();
    const inst = openLocalInstance({ home, worker: "none" });
    await inst.saveSnapshot("snap");
    // The live instance moves on: a third space, and other media.
    inst.createSpace({ plan: "PRO", credits: 30 });
    fs.rmSync(inst.mediaDir, { recursive: true, force: true });
    fs.mkdirSync(inst.mediaDir);
    writeMedia(inst, "old");
    await inst.close();
    base = home;
  });

  const cases: [RestoreStep, Side][] = [
    ["staged-db", "old"],
    ["staged", "old"],
    ["committed", "new"],
    ["swapped-db", "new"],
    ["swapped-media", "new"],
    ["swapped", "new"],
    ["done", "new"],
  ];

  test.each(cases)(
    "killed at %s: the next start finds the %s instance, whole",
    async (step, expected) => {
      const home = copyHome(base);
      expect(await sideOf(copyHome(base))).toBe("old");
      const f = startFixture("snapshot-restore.mjs", [home, "snap", step]);
      running.push(f);
      await f.ready;
      expect(f.stdout(), f.stderr()).toBe(`at ${step}\n`);
      f.child.kill("SIGKILL");
      expect((await f.exited).signal).toBe("SIGKILL");
      expect(await sideOf(home)).toBe(expected);
      // And the instance restores as usual afterwards.
      const inst = openLocalInstance({ home, worker: "none" });
      try {
        await inst.restoreSnapshot("snap");
        expect(inst.listSpaces().length).toBe(2);
      } finally {
        await inst.close();
      }
    },
    30_000,
  );

  test("a killed save's and a killed restore's temp folders are removed at the next start; a live process's are kept", async () => {
    const home = copyHome(base);
    // A pid that is surely dead: a child that has exited.
    const dead = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise((r) => dead.on("exit", r));
    const pid = dead.pid!;
    const local = path.join(home, "local");
    const saving = path.join(local, "snapshots", `.saving-my-snap-${pid}-1700000000000`);
    const staging = path.join(local, `.restore-${pid}-1700000000000`);
    const old = path.join(local, `.restore-old-${pid}-1700000000000`);
    const liveSaving = path.join(local, "snapshots", `.saving-other-${process.ppid}-1700000000000`);
    for (const d of [saving, staging, old, liveSaving]) {
      fs.mkdirSync(path.join(d, "media"), { recursive: true });
      fs.writeFileSync(path.join(d, "media", "big.bin"), "x");
    }
    expect(await sideOf(home)).toBe("old");
    for (const d of [saving, staging, old]) expect(fs.existsSync(d), d).toBe(false);
    expect(fs.existsSync(liveSaving)).toBe(true);
  });
});
