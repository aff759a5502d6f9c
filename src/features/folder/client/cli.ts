import type { Command } from "commander";
import { CliError, EXIT, type Context } from "../../../cli/types.js";
import type { CommandModule } from "../../../cli/command-context.js";
import { examples } from "../../../cli/help-text.js";
import { keyValues, table, widthOf } from "../../../cli/output.js";
import { BODY_FLAG, defineFlags, type FlagInput } from "../../../cli/flags.js";
import type { Folder, FolderListResponse } from "../contract.js";
import { FOLDER_TYPES } from "../../../contract/folder-types.js";

export const CREATE_FLAGS = defineFlags({
  name: { flag: "--name <name>", type: "string", help: "folder name (required)", field: "name" },
  type: { flag: "--type <type>", type: "choice", choices: FOLDER_TYPES, help: "folder type (default assets)", field: "type" },
  parent: { flag: "--parent <folder_id>", type: "string", help: "parent folder id (same type)", field: "parent_folder_id" },
  body: BODY_FLAG,
});

export const LIST_FLAGS = defineFlags({
  type: { flag: "--type <type>", type: "choice", choices: FOLDER_TYPES, help: "only folders of this type", field: "type" },
});

const folderLines = (f: Folder) =>
  keyValues([
    ["id", f.id],
    ["name", f.name],
    ["type", f.type],
    ["parent", f.parent_folder_id],
    ["created", f.created_at],
  ]);

async function promptName(ctx: Context): Promise<string> {
  const { input } = await import("@inquirer/prompts");
  return input({ message: "Folder name:", required: true }, { input: ctx.io.stdin, output: ctx.io.stderr });
}

export const command: CommandModule = {
  register(folder: Command, getContext) {
    examples(folder, ["mediagen folder create --name Clips", "mediagen folder list --type videos --json"]);

    const create = CREATE_FLAGS.addTo(folder.command("create").description("Create a folder (POST /folder/create)")).action(
      async (opts: FlagInput<typeof CREATE_FLAGS>, cmd: Command) => {
        const ctx = getContext(cmd);
        const flags = CREATE_FLAGS.values(opts);
        const body = CREATE_FLAGS.request(flags, flags.body ? await ctx.readBody(flags.body) : {});
        if (body.name === undefined) {
          if (!ctx.io.canPrompt) throw new CliError("missing required flag --name", EXIT.usage, "missing_field", "name");
          body.name = await promptName(ctx);
        }
        ctx.explainWith?.(CREATE_FLAGS.givenFlags(flags), body);
        const engine = await ctx.engine();
        const created = await engine.folderCreate(body);
        ctx.print(created, folderLines, (f) => [f.id]);
      },
    );
    examples(create, [
      "mediagen folder create --name Clips",
      "mediagen folder create --name Finals --type videos --json",
      "mediagen folder create --name Takes --parent 65f0c2a1b3e4d5f6a7b8c9d0",
      'echo \'{"name":"Clips"}\' | mediagen folder create --body -',
    ]);

    const list = LIST_FLAGS.addTo(folder.command("list").description("List folders (GET /folder/list)")).action(
      async (opts: FlagInput<typeof LIST_FLAGS>, cmd: Command) => {
        const ctx = getContext(cmd);
        const query = LIST_FLAGS.request(LIST_FLAGS.values(opts));
        const engine = await ctx.engine();
        const res = await engine.folderList(query);
        ctx.print(
          res,
          (r: FolderListResponse) => {
            if (!r.folders.length) {
              ctx.io.info("No folders.");
              return [];
            }
            return table(
              r.folders,
              [
                { header: "id", get: (f) => f.id, id: true },
                { header: "name", get: (f) => f.name },
                { header: "type", get: (f) => f.type },
                { header: "parent", get: (f) => f.parent_folder_id, id: true },
                { header: "created", get: (f) => f.created_at, optional: true, whole: true },
              ],
              widthOf(ctx.io),
            );
          },
          (r) => r.folders.map((f) => f.id),
        );
      },
    );
    examples(list, ["mediagen folder list", "mediagen folder list --type videos", "mediagen folder list -q"]);
  },
};
