/**
 * `mediagen local snapshot save|restore|list|delete`: named copies of the local instance (database,
 * media, default key) to start tests from a known state. Saving is safe while `serve` runs and
 * writes; restoring under a running `serve` is refused here (that serve restores through its admin
 * path, POST /_mediagen/snapshots/<name>/restore, where it takes effect at once).
 */
import type { Command } from "commander";
import type { CommandContext } from "../command-context.js";
import { examples } from "../help-text.js";
import { table, widthOf } from "../output.js";
import { defineFlags, type FlagInput } from "../flags.js";

type Getter = (cmd: Command) => CommandContext;

interface SnapshotView {
  name: string;
  created_at: string;
  size_bytes: number;
  media_files: number;
  schema_version: number;
  spaces: number;
}

function size(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

const SAVE_FLAGS = defineFlags({
  force: { flag: "--force", type: "boolean", help: "replace a snapshot of that name" },
});

export function registerSnapshots(local: Command, get: Getter): void {
  const snapshot = local.command("snapshot").description("Save and restore named snapshots of the local instance (database, media, settings)");
  examples(snapshot, ["mediagen local snapshot save clean", "mediagen local snapshot restore clean", "mediagen local snapshot list"]);

  const save = SAVE_FLAGS.addTo(
    snapshot
      .command("save")
      .description("Save the instance as a snapshot (consistent even while `serve` runs and writes)")
      .argument("<name>", "letters, digits, '.', '_' and '-'"),
  ).action(async (name: string, opts: FlagInput<typeof SAVE_FLAGS>, cmd: Command) => {
    const ctx = get(cmd);
    const instance = await ctx.localInstance();
    const view = await instance.saveSnapshot(name, { replace: opts.force === true });
    ctx.print(
      view,
      (v) => [`Saved snapshot ${v.name}: ${v.spaces} space(s), ${v.media_files} media file(s), ${size(v.size_bytes)}.`],
      (v) => [v.name],
    );
  });
  examples(save, ["mediagen local snapshot save clean", "mediagen local snapshot save clean --force --json"]);

  const restore = snapshot
    .command("restore")
    .description("Replace the instance with a snapshot (refused while a `serve` of this instance runs)")
    .argument("<name>", "the snapshot's name")
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      const view = await instance.restoreSnapshot(name);
      ctx.print(
        { restored: view.name, created_at: view.created_at },
        (v) => [`Restored snapshot ${v.restored} (saved ${v.created_at}).`],
        (v) => [v.restored],
      );
    });
  examples(restore, ["mediagen local snapshot restore clean", "curl -X POST http://127.0.0.1:4010/_mediagen/snapshots/clean/restore   # under a running serve"]);

  const list = snapshot
    .command("list")
    .description("List snapshots")
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      ctx.print(
        instance.listSnapshots() as SnapshotView[],
        (rows) => {
          if (!rows.length) {
            ctx.io.info("No snapshots.");
            return [];
          }
          return table(
            rows,
            [
              { header: "name", get: (r) => r.name, id: true },
              { header: "saved", get: (r) => r.created_at, whole: true },
              { header: "spaces", get: (r) => r.spaces, align: "right" },
              { header: "media", get: (r) => r.media_files, align: "right" },
              { header: "size", get: (r) => size(r.size_bytes), align: "right" },
            ],
            widthOf(ctx.io),
          );
        },
        (rows) => rows.map((r) => r.name),
      );
    });
  examples(list, ["mediagen local snapshot list", "mediagen local snapshot list --json"]);

  const del = snapshot
    .command("delete")
    .description("Delete a snapshot")
    .argument("<name>", "the snapshot's name")
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const ctx = get(cmd);
      const instance = await ctx.localInstance();
      instance.deleteSnapshot(name);
      ctx.print(
        { deleted: name },
        () => [],
        () => [name],
      );
      if (!ctx.opts.json) ctx.io.info(`Deleted snapshot ${name}.`);
    });
  examples(del, ["mediagen local snapshot delete clean"]);
}
