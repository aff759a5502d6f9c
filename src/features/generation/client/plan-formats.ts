/**
 * A look filmed in one shape put in a video of another: the service (and the local renderer)
 * cover-crops it to fill the frame, so a horizontal look in a vertical video loses its sides. Not an
 * error — the video is made — but worth a word before credits are spent: `plan validate` warns, and
 * the wizard says so when such a look is picked.
 */
import { CliError, EXIT } from "../../../cli/types.js";
import { PLAN_FIELD } from "../plan.js";

const VIDEO_FORMATS = ["vertical", "square", "ads", "horizontal", "custom"];

/** The shape of a video format (generate --format; vertical when not given, as the service does). */
export function videoShape(format: string | undefined): "vertical" | "horizontal" | "square" {
  if (format === "horizontal") return "horizontal";
  if (format === "square") return "square";
  // ads (4:5) is taller than wide; custom is judged as its default 1080x1920.
  return "vertical";
}

/** The sentence said about a look of `lookFormat` in a video of `format`, or undefined when they fit. */
export function lookFitNote(lookName: string, lookFormat: string | undefined, format: string | undefined): string | undefined {
  if (lookFormat !== "vertical" && lookFormat !== "horizontal") return undefined;
  const shape = videoShape(format);
  if (shape === lookFormat) return undefined;
  const video = format ?? "vertical";
  const lost = lookFormat === "horizontal" ? "its sides are cut off" : "its top and bottom are cut off";
  return `${lookName} is a ${lookFormat} look in a ${video} video${format === undefined ? " (the default; generate --format changes it)" : ""}: it is cropped to fill the frame (${lost})`;
}

interface LookRef {
  look_id: string | null;
  sequences: readonly { look_id: string | null }[];
}

export interface FormatWarning {
  code: "LOOK_FORMAT_MISMATCH";
  field: string;
  message: string;
}

/** One warning per place of the plan that uses a look whose shape differs from the video's. */
export function lookFormatWarnings(blocks: readonly LookRef[], lookFormats: ReadonlyMap<string, string>, format: string | undefined): FormatWarning[] {
  const out: FormatWarning[] = [];
  const check = (field: string, id: string | null) => {
    if (id === null) return;
    const note = lookFitNote(`look ${id}`, lookFormats.get(id), format);
    if (note) out.push({ code: "LOOK_FORMAT_MISMATCH", field, message: `${field}: ${note}` });
  };
  blocks.forEach((b, i) => {
    check(`${PLAN_FIELD}[${i}].look_id`, b.look_id);
    b.sequences.forEach((s, j) => {
      check(`${PLAN_FIELD}[${i}].sequences[${j}].look_id`, s.look_id);
    });
  });
  return out;
}

/**
 * `plan validate`: the look-shape warnings added to a verdict whose ids were checked (the looks'
 * formats come from the target's list; offline, nothing is said).
 */
export async function addLookFormatWarnings(
  ctx: { engine(): Promise<{ avatarList(input?: object): Promise<unknown> }> },
  verdict: { blocks?: readonly LookRef[]; warnings: { code: string; field: string; message: string }[]; ids: { checked: boolean } },
  format: string | undefined,
): Promise<void> {
  if (format !== undefined && !VIDEO_FORMATS.includes(format)) {
    throw new CliError(`--format: expected one of ${VIDEO_FORMATS.join(", ")}, got "${format}"`, EXIT.usage, "invalid_value", "--format");
  }
  if (!verdict.blocks || !verdict.ids.checked) return;
  const looks = (await (await ctx.engine()).avatarList({})) as { id: string; format?: string }[];
  const formats = new Map(looks.filter((l) => typeof l.format === "string").map((l) => [l.id, l.format!]));
  verdict.warnings.push(...lookFormatWarnings(verdict.blocks, formats, format));
}
