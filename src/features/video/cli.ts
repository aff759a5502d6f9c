/**
 * `mediagen duplicate <video_id> [--voice ID] [--look ID]` (POST /video/duplicate): a copy of a done
 * video, with its speech made again in a new voice and/or its looks replaced. The copy is `done` at
 * once; export it to get a file.
 */
import type { Command } from "commander";
import { CliError, EXIT, type CommandModule } from "../../cli/types.js";
import { examples } from "../../cli/help-text.js";
import { keyValues } from "../../cli/output.js";
import type { VideoDuplicateResponse } from "./contract.js";

interface DuplicateFlags {
  voice?: string;
  look?: string;
  body?: string;
}

export function duplicateBody(videoId: string | undefined, flags: DuplicateFlags, body: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  if (videoId !== undefined) out.video_id = videoId;
  if (flags.voice !== undefined) out.voice_id = flags.voice;
  if (flags.look !== undefined) out.avatar_look_id = flags.look;
  return out;
}

function lines(r: VideoDuplicateResponse): string[] {
  return keyValues([
    ["video", r.video_id],
    ["status", r.status],
    ["voice changed", r.changes_applied.voice_changed],
    ["look changed", r.changes_applied.avatar_changed],
    ["message", r.message],
  ]);
}

export const command: CommandModule = {
  register(duplicate: Command, getContext) {
    duplicate
      .argument("[video_id]", "the done video to copy")
      .option("--voice <voice_id>", "voice_id: speak the copy with this voice (speech and timing are made again)")
      .option("--look <look_id>", "avatar_look_id: show this look instead of the video's looks")
      .option("--body <file|->", "request body as JSON from a file or - (stdin); the argument and flags override its fields")
      .action(async (videoId: string | undefined, opts: DuplicateFlags, cmd: Command) => {
        const ctx = getContext(cmd);
        const body = duplicateBody(videoId, opts, opts.body ? await ctx.readBody(opts.body) : {});
        if (body.video_id === undefined) throw new CliError("missing <video_id>", EXIT.usage, "missing_field", "video_id");
        const given: Record<string, unknown> = { video_id: videoId, voice_id: opts.voice, avatar_look_id: opts.look };
        const names: Record<string, string> = { video_id: "<video_id>", voice_id: "--voice", avatar_look_id: "--look" };
        ctx.explainWith?.((field) => (given[field] !== undefined ? names[field] : undefined), body);
        const engine = await ctx.engine();
        const res = await engine.videoDuplicate(body);
        ctx.print(res, lines, (r) => [r.video_id]);
      });
    examples(duplicate, [
      "mediagen duplicate 65f0c2a1b3e4d5f6a7b8c9d0",
      "mediagen duplicate 65f0c2a1b3e4d5f6a7b8c9d0 --voice vc_noah",
      "mediagen duplicate 65f0c2a1b3e4d5f6a7b8c9d0 --voice vc_camille --look lk_lena_studio --json",
    ]);
  },
};
