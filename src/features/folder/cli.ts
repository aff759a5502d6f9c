import { Option, type Command } from "commander";
import { CliError, EXIT, type CommandModule, type Context } from "../../cli/types.js";
import { examples } from "../../cli/help-text.js";
import { keyValues, table, widthOf } from "../../cli/output.js";
import type { Folder, FolderListResponse } from "./contract.js";

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

    const create = folder
      .command("create")
      .description("Create a folder (POST /folder/create)")
      .option("--name <name>", "folder name (required)")
      .addOption(new Option("--type <type>", "folder type (default assets)").choices(["assets", "videos"]))
      .option("--parent <folder_id>", "parent folder id (same type)")
      .option("--body <file>", "request body as JSON from a file or - (stdin); flags override its fields")
      .action(async (opts: { name?: string; type?: string; parent?: string; body?: string }, cmd: Command) => {
        const ctx = getContext(cmd);
        const body: Record<string, unknown> = opts.body ? await ctx.readBody(opts.body) : {};
        if (opts.name !== undefined) body.name = opts.name;
        if (opts.type !== undefined) body.type = opts.type;
        if (opts.parent !== undefined) body.parent_folder_id = opts.parent;
        if (body.name === undefined) {
          if (!ctx.io.canPrompt) throw new CliError("missing required flag --name", EXIT.usage, "missing_field", "name");
          body.name = await promptName(ctx);
        }
        const engine = await ctx.engine();
        const created = await engine.folderCreate(body);
        ctx.print(created, folderLines, (f) => [f.id]);
      });
    examples(create, [
      "mediagen folder create --name Clips",
      "mediagen folder create --name Finals --type videos --json",
      "mediagen folder create --name Takes --parent 65f0c2a1b3e4d5f6a7b8c9d0",
      "echo '{\"name\":\"Clips\"}' | mediagen folder create --body -",
    ]);

    const list = folder
      .command("list")
      .description("List folders (GET /folder/list)")
      .addOption(new Option("--type <type>", "only folders of this type").choices(["assets", "videos"]))
      .action(async (opts: { type?: string }, cmd: Command) => {
        const ctx = getContext(cmd);
        const engine = await ctx.engine();
        const res = await engine.folderList(opts.type ? { type: opts.type } : {});
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
                { header: "id", get: (f) => f.id },
                { header: "name", get: (f) => f.name },
                { header: "type", get: (f) => f.type },
                { header: "parent", get: (f) => f.parent_folder_id },
                { header: "created", get: (f) => f.created_at },
              ],
              widthOf(ctx.io),
            );
          },
          (r) => r.folders.map((f) => f.id),
        );
      });
    examples(list, ["mediagen folder list", "mediagen folder list --type videos", "mediagen folder list -q"]);
  },
};
