/**
 * `mediagen plan new` / `plan edit`: builds a sequence plan on a terminal, against the current target.
 * Prompts (@inquirer/prompts) are drawn on stderr, so stdout only ever carries the saved file's path.
 *
 * The plan is kept as blocks whose voice and look may be left to the plan's defaults (picked first,
 * from the target's voices and looks, with language and gender filters); the saved file is
 * self-contained: every spoken block names its voice, every block its look. Before each step the
 * wizard shows the timeline so far, with the spoken time estimated from the text at the voice's rate
 * and the credits the service would charge. Saving checks the plan with the service's rules and ids,
 * then writes it atomically (temp file + rename). Work in progress is kept as a draft beside the
 * output (plan-draft.ts) and offered on the next run; Ctrl-C with unsaved work asks before the draft
 * is discarded (a second Ctrl-C quits, keeping it), then exits 130. A look whose shape differs from
 * the video's is said when picked. Each spoken block asks its voice once its look is known, the one
 * fitting the look's gender and the text's language offered first; another is kept with a warning.
 * After saving, the video's format and background music (request fields, not plan fields: they go to
 * `generate` as flags) come before "Make the video now?". What the wizard prints itself fits the
 * terminal's width (broken between words, ids whole). Without a terminal it refuses (exit 2) and names
 * the non-interactive way.
 */
import fs from "node:fs";
import path from "node:path";
import { CliError, EXIT } from "../../../cli/types.js";
import type { CommandContext } from "../../../cli/command-context.js";
import { isCI, type Env } from "../../../cli/io.js";
import type { Engine } from "../../../engine/engine.js";
import { checkPlan, MEDIA_SHOW, refProblem, type MediaShowValue, type PlanBlock } from "../plan.js";
import { estimateSpeechMs } from "../text.js";
import { draftPath, readDraft, removeDraft, writeDraft } from "./plan-draft.js";
import { lookFitNote } from "./plan-formats.js";
import { fitParts, planTimeline, timelineLines, wrapWords } from "./plan-show.js";
import { stderrWidth } from "../../../cli/output.js";
import { textLanguage } from "../../../cli/voice-for-look.js";
import { wrapExample } from "../../../cli/help-text.js";

export interface WizardOptions {
  output: string;
  force: boolean;
  /** `plan edit`: the plan to re-open. */
  edit?: string;
}

interface VoiceItem {
  id: string;
  name: string;
  language: string;
  gender: string;
}
interface LookItem {
  id: string;
  avatar_id: string;
  avatar_name: string;
  look_name: string;
  gender: string;
  format?: string;
}

interface WMedia {
  asset_id?: string;
  url?: string;
  show: MediaShowValue;
  start_at?: number;
}
interface WSeq {
  text: string | null;
  duration_ms: number | null;
  look_id: string | null;
  action: string | null;
  media: WMedia | null;
}
interface WBlock {
  /** null: the plan's default voice. */
  voice_id: string | null;
  /** null: the plan's default look. */
  look_id: string | null;
  /** Fields the wizard does not edit but keeps (audio_url, avatar_id, unknown ones). */
  extra: Record<string, unknown>;
  sequences: WSeq[];
}

interface State {
  voice: string;
  look: string;
  blocks: WBlock[];
}

type Prompts = typeof import("@inquirer/prompts");

/** What the step before "Make the video now?" chose: the request's `format` (and size) and `enable.music`; nothing chosen is today's request. */
export interface VideoChoice {
  format?: string;
  width?: string;
  height?: string;
  music?: true;
}

/** The request's formats (the spec's `format` of POST /generation/start); vertical is the service's default. */
const FORMAT_CHOICES = [
  { name: "vertical — 9:16 (the default)", value: "" },
  { name: "square — 1:1", value: "square" },
  { name: "ads — 4:5", value: "ads" },
  { name: "horizontal — 16:9", value: "horizontal" },
  { name: "custom — a width and height of yours", value: "custom" },
];

/** The flags of `generate` that say a VideoChoice. */
export function videoFlags(v: VideoChoice): string[] {
  return [
    ...(v.format ? ["--format", v.format] : []),
    ...(v.width ? ["--width", v.width] : []),
    ...(v.height ? ["--height", v.height] : []),
    ...(v.music ? ["--music"] : []),
  ];
}

/** A language code without its region (`en-US` → `en`), as a text's words tell it. */
const baseLanguage = (code: string) => String(code).toLowerCase().split(/[-_]/)[0] ?? "";

/** A draft's state as written by this wizard (checked loosely: the blocks are read as they were kept). */
function isState(s: unknown): s is State {
  const x = s as Partial<State> | null;
  return (
    !!x &&
    typeof x.voice === "string" &&
    typeof x.look === "string" &&
    Array.isArray(x.blocks) &&
    x.blocks.every((b) => b && typeof b === "object" && Array.isArray((b as WBlock).sequences))
  );
}

/** Ctrl-C (or Escape-abort) at an inquirer prompt. */
const isPromptExit = (e: unknown) => (e as Error)?.name === "ExitPromptError" || (e as Error)?.name === "AbortPromptError";

const NO_TTY =
  "plan new needs a terminal (stdin and stderr) for its prompts. Without one, write the plan as JSON " +
  "(its JSON Schema: `mediagen plan schema`), check it with `mediagen plan validate plan.json`, and run it with `mediagen generate --plan plan.json`.";

const isSilent = (b: WBlock) => b.sequences.length > 0 && b.sequences.every((s) => s.text === null);
const secs = (ms: number) => `${(Math.round(ms / 100) / 10).toFixed(1)} s`;

/** A word a shell reads back as itself. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The plan as it is saved: spoken blocks name their voice, every block its look. */
export function planOf(st: State): Record<string, unknown>[] {
  return st.blocks.map((b) => {
    const o: Record<string, unknown> = {};
    if (!isSilent(b)) o.voice_id = b.voice_id ?? st.voice;
    o.look_id = b.look_id ?? st.look;
    Object.assign(o, b.extra);
    o.sequences = b.sequences.map((s) => {
      const q: Record<string, unknown> = { text: s.text };
      if (s.text === null) q.duration_ms = s.duration_ms;
      if (s.look_id !== null) q.look_id = s.look_id;
      if (s.action !== null) q.action = s.action;
      if (s.media !== null) q.media = { ...s.media };
      return q;
    });
    return o;
  });
}

/** A plan read back into the wizard's blocks, leniently (a broken plan can be opened to be fixed). */
function fromPlan(raw: unknown): State {
  if (!Array.isArray(raw))
    throw new CliError("plan edit: the file is not a plan (a JSON array of speech blocks, or an object with sequence_plan)", EXIT.usage, "INVALID_PLAN", "sequence_plan");
  const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);
  const count = (ids: (string | null)[]) => {
    const n = new Map<string, number>();
    for (const id of ids) if (id) n.set(id, (n.get(id) ?? 0) + 1);
    return [...n.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
  };
  const blocks: WBlock[] = raw.map((rb) => {
    const b = (rb && typeof rb === "object" ? rb : {}) as Record<string, unknown>;
    const { voice_id, look_id, sequences, ...extra } = b;
    const seqs = Array.isArray(sequences) ? sequences : [];
    return {
      voice_id: str(voice_id),
      look_id: str(look_id),
      extra,
      sequences: seqs.map((rs) => {
        const s = (rs && typeof rs === "object" ? rs : {}) as Record<string, unknown>;
        const m = s.media && typeof s.media === "object" ? (s.media as Record<string, unknown>) : null;
        return {
          text: typeof s.text === "string" ? s.text : null,
          duration_ms: typeof s.duration_ms === "number" ? s.duration_ms : s.text === null ? 1000 : null,
          look_id: str(s.look_id),
          action: typeof s.action === "string" && s.action !== "" ? s.action : null,
          media: m
            ? {
                ...(str(m.asset_id) ? { asset_id: str(m.asset_id)! } : {}),
                ...(str(m.url) ? { url: str(m.url)! } : {}),
                show: (MEDIA_SHOW as readonly string[]).includes(m.show as string) ? (m.show as MediaShowValue) : "hide",
                ...(typeof m.start_at === "number" ? { start_at: m.start_at } : {}),
              }
            : null,
        };
      }),
    };
  });
  const voice = count(blocks.filter((b) => !isSilent(b)).map((b) => b.voice_id));
  const look = count(blocks.map((b) => b.look_id));
  for (const b of blocks) {
    if (b.voice_id === voice || isSilent(b)) b.voice_id = null;
    if (b.look_id === look) b.look_id = null;
  }
  return { voice, look, blocks };
}

class Wizard {
  private p!: Prompts;
  private voices: VoiceItem[] = [];
  private looks: LookItem[] = [];
  private target: "local" | "hosted" = "local";
  private readonly err: NodeJS.WritableStream;
  /** Where the plan was saved, once it was. */
  saved: string | undefined;
  /** The state the wizard opened (plan edit), as JSON: a draft is kept only once the plan differs. */
  baseline: string | undefined;
  /** Whether a draft was written by this run. */
  drafted = false;

  constructor(
    private readonly ctx: CommandContext,
    private readonly engine: Engine,
    private readonly output: string,
  ) {
    this.err = ctx.io.stderr;
  }

  private get io() {
    return { input: this.ctx.io.stdin, output: this.ctx.io.stderr };
  }
  /** The terminal's width (Infinity when it reports none): what the wizard's own lines are fitted to. */
  private get width(): number {
    return stderrWidth(this.ctx.io);
  }
  /** A line (or several) on stderr, each broken between words to fit the terminal, ids whole. */
  private say(text = "") {
    for (const line of text.split("\n")) for (const l of wrapWords(line, this.width)) this.err.write(l + "\n");
  }

  async load(): Promise<void> {
    this.p = await import("@inquirer/prompts");
    this.target = this.engine.target;
    const [voices, looks] = await Promise.all([this.engine.voiceList({}), this.engine.avatarList({})]);
    this.voices = voices as VoiceItem[];
    this.looks = looks as LookItem[];
    if (!this.voices.length) throw new CliError("the target lists no voice: a plan needs one (mediagen voice list)", EXIT.error, "no_voices");
    if (!this.looks.length) throw new CliError("the target lists no look: a plan needs one (mediagen avatar list)", EXIT.error, "no_looks");
  }

  voiceName(id: string): string {
    const v = this.voices.find((x) => x.id === id);
    return v ? `${v.name} (${id})` : id;
  }
  lookName(id: string): string {
    const l = this.looks.find((x) => x.id === id);
    return l ? `${l.look_name} (${id})` : id;
  }

  async pickVoice(message: string, current?: string): Promise<string> {
    const cur = this.voices.find((v) => v.id === current);
    const langs = [...new Set(this.voices.map((v) => v.language))].sort();
    for (;;) {
      const language = await this.p.select(
        { message: "Voice language", choices: [{ name: "Any language", value: "" }, ...langs.map((l) => ({ name: l, value: l }))], default: cur?.language ?? "" },
        this.io,
      );
      const gender = await this.p.select(
        {
          message: "Voice gender",
          choices: [
            { name: "Any", value: "" },
            { name: "female", value: "female" },
            { name: "male", value: "male" },
          ],
        },
        this.io,
      );
      const list = this.voices.filter((v) => (!language || v.language === language) && (!gender || v.gender === gender));
      if (!list.length) {
        this.say(`No ${gender || ""} voice in ${language || "any language"}; choose other filters.`);
        continue;
      }
      return this.p.search(
        {
          message: `${message} (type to search)`,
          pageSize: 8,
          source: async (term) =>
            list
              .filter((v) => !term || `${v.name} ${v.id} ${v.language} ${v.gender}`.toLowerCase().includes(term.toLowerCase()))
              .map((v) => ({ name: `${v.name} — ${v.language}, ${v.gender} (${v.id})`, value: v.id, short: `${v.name} (${v.id})` })),
        },
        this.io,
      );
    }
  }

  async pickLook(message: string): Promise<string> {
    for (;;) {
      const gender = await this.p.select(
        {
          message: "Look gender",
          choices: [
            { name: "Any", value: "" },
            { name: "female", value: "female" },
            { name: "male", value: "male" },
          ],
        },
        this.io,
      );
      const list = this.looks.filter((l) => !gender || l.gender === gender);
      if (!list.length) {
        this.say("No look of that gender; choose another filter.");
        continue;
      }
      const id = await this.p.search(
        {
          message: `${message} (type to search)`,
          pageSize: 8,
          source: async (term) =>
            list
              .filter((l) => !term || `${l.look_name} ${l.avatar_name} ${l.id} ${l.gender}`.toLowerCase().includes(term.toLowerCase()))
              .map((l) => ({ name: `${l.look_name} — ${l.avatar_name}, ${l.gender} (${l.id})`, value: l.id, short: `${l.look_name} (${l.id})` })),
        },
        this.io,
      );
      this.sayLookFit(id);
      return id;
    }
  }

  /** A look whose shape differs from the video's (vertical: what generate makes unless told): said at once. */
  sayLookFit(id: string): void {
    const l = this.looks.find((x) => x.id === id);
    const note = l ? lookFitNote(l.look_name, l.format, undefined) : undefined;
    if (note) this.say(`Note: ${note}.`);
  }

  /** A completed image or video asset: one this machine made on this target, or an id typed in. */
  async pickAsset(): Promise<string> {
    const { readHistory } = await import("../../../cli/journal.js");
    const home = (await this.ctx.config()).home;
    const seen = new Set<string>();
    const recent = readHistory(home)
      .filter((h) => h.kind === "asset" && h.target === this.target)
      .reverse()
      .filter((h) => {
        if (seen.has(h.id)) return false;
        seen.add(h.id);
        return true;
      })
      .slice(0, 20);
    const choice = await this.p.select(
      {
        message: "Which asset",
        choices: [...recent.map((h) => ({ name: `${h.id}${h.prompt ? ` — ${h.prompt.slice(0, 50)}` : ""}`, value: h.id })), { name: "Type an asset id…", value: "" }],
      },
      this.io,
    );
    const check = async (id: string): Promise<string | true> => {
      try {
        const a = (await this.engine.assetStatus({ assetId: id.trim() })) as { status: string; type: string };
        if (a.type !== "image" && a.type !== "video") return `asset ${id} is ${a.type}, not an image or a video`;
        return a.status === "completed" ? true : `asset ${id} is ${a.status}, not completed`;
      } catch (e) {
        return (e as Error).message.split("\n")[0] ?? "not found";
      }
    };
    if (choice) {
      const ok = await check(choice);
      if (ok === true) return choice;
      this.say(ok);
    }
    const id = await this.p.input({ message: "Asset id", required: true, validate: check }, this.io);
    return id.trim();
  }

  async askMedia(existing: WMedia | null): Promise<WMedia | null> {
    const choices = [
      ...(existing ? [{ name: `Keep: ${existing.show} ${existing.asset_id ?? existing.url}`, value: "keep" }] : []),
      { name: "None (automatic b-roll, if no sequence of the plan has media)", value: "none" },
      { name: "An asset from the library", value: "asset" },
      { name: "A URL (image or video)", value: "url" },
      ...(this.target === "local" ? [{ name: "A local file (image or video)", value: "file" }] : []),
    ];
    const kind = await this.p.select({ message: "Media on screen", choices }, this.io);
    if (kind === "keep") return existing;
    if (kind === "none") return null;
    const m: WMedia = { show: "full" };
    if (kind === "asset") m.asset_id = await this.pickAsset();
    if (kind === "url") {
      m.url = (
        await this.p.input(
          { message: "URL of the image or video", required: true, validate: (v) => refProblem(v, ["image", "video"], { allowLocalFiles: false }) ?? true },
          this.io,
        )
      ).trim();
    }
    if (kind === "file") {
      const file = await this.p.input(
        {
          message: "Path of the image or video file",
          required: true,
          validate: (v) => {
            const abs = path.resolve(v.trim());
            let isFile = false;
            try {
              isFile = fs.statSync(abs).isFile();
            } catch {
              return `no such file: ${abs}`;
            }
            if (!isFile) return `not a file: ${abs}`;
            return refProblem(abs, ["image", "video"], { allowLocalFiles: true }) ?? true;
          },
        },
        this.io,
      );
      m.url = path.resolve(file.trim());
    }
    m.show = await this.p.select(
      {
        message: "How to show it",
        choices: [
          { name: "full — the whole screen", value: "full" as const },
          { name: "half — half the screen, the avatar in the other half", value: "half" as const },
          { name: "background — behind the avatar", value: "background" as const },
          { name: "hide — not shown (the service's default)", value: "hide" as const },
        ],
        default: existing?.show ?? "full",
      },
      this.io,
    );
    const isVideo = /\.(mp4|mov|webm|m4v)$/i.test((m.url ?? "").replace(/[?#].*$/, ""));
    if (isVideo && existing?.start_at !== undefined) m.start_at = existing.start_at;
    return m;
  }

  /** One sequence: text (or a silence's length), its look, action and media. */
  async askSequence(silent: boolean, blockLook: string, existing?: WSeq): Promise<WSeq> {
    let text: string | null = null;
    let duration: number | null = null;
    if (!silent) {
      text = (
        await this.p.input(
          {
            message: "Spoken text of the sequence",
            required: true,
            ...(existing?.text ? { default: existing.text } : {}),
            validate: (v) => (v.trim() ? true : "say something (or add a silent sequence instead)"),
          },
          this.io,
        )
      ).trim();
      this.say(`  about ${secs(estimateSpeechMs(text))} spoken`);
    } else {
      const s = await this.p.input(
        {
          message: "Length of the silence, in seconds",
          default: existing?.duration_ms ? String(existing.duration_ms / 1000) : "2",
          validate: (v) => {
            const n = Number(v);
            return v.trim() !== "" && Number.isFinite(n) && n > 0 && n <= 600 ? true : "a number of seconds, more than 0 and at most 600";
          },
        },
        this.io,
      );
      duration = Math.round(Number(s) * 1000);
    }
    const lookChoice = await this.p.select(
      {
        message: "Look for this sequence",
        choices: [
          { name: `The block's look: ${this.lookName(blockLook)}`, value: "block" },
          ...(existing?.look_id ? [{ name: `Keep: ${this.lookName(existing.look_id)}`, value: "keep" }] : []),
          { name: "Another look…", value: "other" },
        ],
        default: existing?.look_id ? "keep" : "block",
      },
      this.io,
    );
    const look = lookChoice === "block" ? null : lookChoice === "keep" ? existing!.look_id : await this.pickLook("Look of this sequence");
    const action = (await this.p.input({ message: "Action (avatar direction; empty for none)", default: existing?.action ?? "" }, this.io)).trim();
    const media = await this.askMedia(existing?.media ?? null);
    return { text, duration_ms: duration, look_id: look === blockLook ? null : look, action: action || null, media };
  }

  /** The look on screen while a block speaks first: its first sequence's, else the block's. */
  speakingLook(st: State, b: WBlock): LookItem | undefined {
    const id = b.sequences[0]?.look_id ?? this.blockLook(st, b);
    return this.looks.find((l) => l.id === id);
  }

  /** The language a block's text is in (a base code: `en`), when its words say; undefined otherwise. */
  textLanguageOf(b: WBlock): string | undefined {
    const langs = [...new Set(this.voices.map((v) => baseLanguage(v.language)))];
    return textLanguage(b.sequences.map((s) => s.text ?? "").join(" "), langs);
  }

  /**
   * A spoken block's voice, asked once its look is known: every voice, the one suggested first (Enter
   * takes it): the block's own or the plan's default when it fits the look's gender and the text's
   * language (else the default voice's language), else another block's that fits, else the first that
   * fits. A voice of another gender than the look, or another language than the text, is kept, with a warning.
   */
  async pickBlockVoice(st: State, b: WBlock): Promise<void> {
    const look = this.speakingLook(st, b);
    const lang = this.textLanguageOf(b);
    const defaultLanguage = this.voices.find((v) => v.id === st.voice)?.language;
    const wanted = lang ?? (defaultLanguage ? baseLanguage(defaultLanguage) : undefined);
    const fits = (v: VoiceItem) => (!look?.gender || v.gender === look.gender) && (!wanted || baseLanguage(v.language) === wanted);
    const known = [b.voice_id, st.voice, ...st.blocks.map((x) => x.voice_id)].flatMap((id) => this.voices.filter((v) => v.id === id));
    const first = known.find(fits) ?? this.voices.find(fits) ?? known[0] ?? this.voices[0]!;
    const ordered = [first, ...this.voices.filter((v) => v !== first && fits(v)), ...this.voices.filter((v) => v !== first && !fits(v))];
    const id = await this.p.search(
      {
        message: "Voice of this block (type to search)",
        pageSize: 8,
        source: async (term) =>
          ordered
            .filter((v) => !term || `${v.name} ${v.id} ${v.language} ${v.gender}`.toLowerCase().includes(term.toLowerCase()))
            .map((v) => ({ name: `${v.name} — ${v.language}, ${v.gender} (${v.id})`, value: v.id, short: `${v.name} (${v.id})` })),
      },
      this.io,
    );
    b.voice_id = id === st.voice ? null : id;
    const v = this.voices.find((x) => x.id === id);
    const off: string[] = [];
    if (v && look?.gender && v.gender && v.gender !== look.gender) off.push(`is a ${v.gender} voice on a ${look.gender} look (${look.look_name})`);
    if (v && lang && v.language && baseLanguage(v.language) !== lang) off.push(`speaks ${v.language}, the text reads as ${lang}`);
    if (v && off.length) this.say(`Warning: ${v.name} (${v.id}) ${off.join("; it ")}. Kept: "Edit a block…" changes it.`);
  }

  blockLook(st: State, b: WBlock): string {
    return b.look_id ?? st.look;
  }

  async addSpeech(st: State): Promise<void> {
    const b: WBlock = { voice_id: null, look_id: null, extra: {}, sequences: [] };
    for (;;) {
      b.sequences.push(await this.askSequence(false, st.look));
      if (b.sequences.length === 1) {
        st.blocks.push(b);
        this.keep(st);
        await this.pickBlockVoice(st, b);
      }
      this.keep(st);
      if (!(await this.p.confirm({ message: "Add another sequence to this block?", default: false }, this.io))) break;
    }
  }

  async addSilent(st: State): Promise<void> {
    st.blocks.push({ voice_id: null, look_id: null, extra: {}, sequences: [await this.askSequence(true, st.look)] });
  }

  blockLabel(st: State, b: WBlock, i: number): string {
    if (isSilent(b)) return `${i + 1}. silence of ${secs(b.sequences[0]!.duration_ms ?? 0)}`;
    const first = b.sequences[0]?.text ?? "";
    return `${i + 1}. "${first.length > 40 ? first.slice(0, 39) + "…" : first}" (${b.sequences.length} sequence${b.sequences.length === 1 ? "" : "s"}, ${this.voiceName(b.voice_id ?? st.voice)})`;
  }

  async pickBlock(st: State, message: string): Promise<number> {
    return this.p.select({ message, choices: st.blocks.map((b, i) => ({ name: this.blockLabel(st, b, i), value: i })) }, this.io);
  }

  async editBlock(st: State): Promise<void> {
    const i = await this.pickBlock(st, "Which block");
    const b = st.blocks[i]!;
    for (;;) {
      this.keep(st);
      const silent = isSilent(b);
      const choices = [
        ...b.sequences.map((s, j) => ({
          name: `Edit sequence ${j + 1}: ${s.text === null ? `silence of ${secs(s.duration_ms ?? 0)}` : `"${s.text.slice(0, 40)}"`}`,
          value: `edit:${j}`,
        })),
        ...(silent ? [] : [{ name: "Add a sequence", value: "add" }]),
        ...(b.sequences.length > 1
          ? [
              { name: "Move a sequence", value: "move" },
              { name: "Delete a sequence", value: "delete" },
            ]
          : []),
        ...(silent ? [] : [{ name: `Voice of this block: ${this.voiceName(b.voice_id ?? st.voice)}${b.voice_id ? "" : " (the default)"}`, value: "voice" }]),
        { name: `Look of this block: ${this.lookName(this.blockLook(st, b))}${b.look_id ? "" : " (the default)"}`, value: "look" },
        { name: "Done with this block", value: "back" },
      ];
      const what = await this.p.select({ message: `Block ${i + 1}`, choices, pageSize: 14 }, this.io);
      if (what === "back") return;
      if (what.startsWith("edit:")) {
        const j = Number(what.slice(5));
        b.sequences[j] = await this.askSequence(silent, this.blockLook(st, b), b.sequences[j]);
      } else if (what === "add") {
        b.sequences.push(await this.askSequence(false, this.blockLook(st, b)));
      } else if (what === "move") {
        const j = await this.p.select(
          { message: "Which sequence", choices: b.sequences.map((s, k) => ({ name: `${k + 1}. ${s.text ?? "silence"}`, value: k })) },
          this.io,
        );
        const to = await this.p.select({ message: "Move it to position", choices: b.sequences.map((_, k) => ({ name: String(k + 1), value: k })) }, this.io);
        b.sequences.splice(to, 0, ...b.sequences.splice(j, 1));
      } else if (what === "delete") {
        const j = await this.p.select(
          { message: "Delete which sequence", choices: b.sequences.map((s, k) => ({ name: `${k + 1}. ${s.text ?? "silence"}`, value: k })) },
          this.io,
        );
        b.sequences.splice(j, 1);
      } else if (what === "voice") {
        await this.pickBlockVoice(st, b);
      } else if (what === "look") {
        const l = await this.pickLook("Look of this block");
        b.look_id = l === st.look ? null : l;
        if (!silent) await this.pickBlockVoice(st, b);
      }
    }
  }

  /** The timeline so far, its length and price (stderr). */
  async summary(st: State): Promise<void> {
    if (!st.blocks.length) {
      this.say("");
      for (const l of fitParts([`Default voice ${this.voiceName(st.voice)}`, `default look ${this.lookName(st.look)}`, "No block yet."], this.width)) this.say(l);
      return;
    }
    const plan = planOf(st);
    const checked = checkPlan(plan, { allowLocalFiles: this.target === "local" });
    this.say("");
    if (checked.blocks) {
      const tl = planTimeline(checked.blocks as PlanBlock[], this.target);
      const names = { voice: (id: string) => this.voices.find((v) => v.id === id)?.name, look: (id: string) => this.looks.find((x) => x.id === id)?.look_name };
      for (const l of timelineLines(tl, names, this.width)) this.say(l);
    } else {
      for (const p of checked.problems) this.say(`problem: ${p.message}`);
    }
  }

  /** Whether the plan differs from what the wizard started from (nothing, or the file opened). */
  dirty(st: State): boolean {
    return this.baseline === undefined ? st.blocks.length > 0 : JSON.stringify(st) !== this.baseline;
  }

  /** The draft, rewritten after each answer that changed the plan. */
  keep(st: State): void {
    if (this.saved || !this.dirty(st)) return;
    writeDraft(this.output, st);
    this.drafted = true;
  }

  async run(st: State, o: WizardOptions): Promise<void> {
    for (;;) {
      this.keep(st);
      await this.summary(st);
      const has = st.blocks.length > 0;
      const what = await this.p.select(
        {
          message: "What next?",
          pageSize: 10,
          choices: [
            { name: "Add a speech block (spoken sequences)", value: "speech" },
            { name: "Add a silent sequence (a pause of a set length)", value: "silent" },
            ...(has ? [{ name: "Edit a block…", value: "edit" }] : []),
            ...(st.blocks.length > 1 ? [{ name: "Move a block…", value: "move" }] : []),
            ...(has ? [{ name: "Delete a block…", value: "delete" }] : []),
            { name: "Change the default voice or look…", value: "defaults" },
            { name: `Save to ${o.output} and finish`, value: "save" },
            { name: "Quit without saving", value: "quit" },
          ],
        },
        this.io,
      );
      if (what === "speech") await this.addSpeech(st);
      else if (what === "silent") await this.addSilent(st);
      else if (what === "edit") await this.editBlock(st);
      else if (what === "move") {
        const i = await this.pickBlock(st, "Move which block");
        const to = await this.p.select({ message: "To position", choices: st.blocks.map((_, k) => ({ name: String(k + 1), value: k })) }, this.io);
        st.blocks.splice(to, 0, ...st.blocks.splice(i, 1));
      } else if (what === "delete") {
        const i = await this.pickBlock(st, "Delete which block");
        if (await this.p.confirm({ message: `Delete block ${i + 1}?`, default: false }, this.io)) st.blocks.splice(i, 1);
      } else if (what === "defaults") {
        const which = await this.p.select(
          {
            message: "Change",
            choices: [
              { name: `Default voice: ${this.voiceName(st.voice)}`, value: "voice" },
              { name: `Default look: ${this.lookName(st.look)}`, value: "look" },
            ],
          },
          this.io,
        );
        if (which === "voice") st.voice = await this.pickVoice("Default voice", st.voice);
        else st.look = await this.pickLook("Default look");
      } else if (what === "quit") {
        if (!has || (await this.p.confirm({ message: "Quit without saving?", default: false }, this.io))) {
          removeDraft(o.output);
          this.say(this.drafted ? "Nothing was saved (the draft was discarded)." : "Nothing was saved.");
          return;
        }
      } else if (what === "save") {
        if (await this.save(st, o)) return;
      }
    }
  }

  /** Checks and writes the plan; false when it cannot be saved yet (back to the menu). */
  async save(st: State, o: WizardOptions): Promise<boolean> {
    if (!st.blocks.length) {
      this.say("Add at least one block first.");
      return false;
    }
    const plan = planOf(st);
    const checked = checkPlan(plan, { allowLocalFiles: this.target === "local" });
    const { resolveIds, writeFileAtomic } = await import("./plan-io.js");
    const problems = checked.blocks ? await resolveIds(this.engine, checked.blocks) : checked.problems;
    if (problems.length) {
      this.say("The plan cannot be saved yet:");
      for (const p of problems) this.say(`  ${p.message}`);
      return false;
    }
    const out = path.resolve(o.output);
    if (!o.force && fs.existsSync(out) && !(await this.p.confirm({ message: `${o.output} exists. Overwrite it?`, default: false }, this.io))) {
      return false;
    }
    writeFileAtomic(out, JSON.stringify(plan, null, 2) + "\n");
    this.saved = out;
    removeDraft(o.output);
    this.ctx.io.out(out);
    this.say(`Saved ${o.output} (checked with the plan rules and the ${this.target} target's ids).`);
    await this.offerPreview(o.output);
    await this.offerGenerate(o.output, await this.askVideo(st));
    return true;
  }

  /** A draft kept for this output by an earlier run: resumed, or discarded, as the user says. */
  async offerDraft(o: WizardOptions): Promise<State | undefined> {
    const d = readDraft(o.output, isState);
    if (!d) return undefined;
    const n = d.state.blocks.length;
    const when = d.saved_at.replace("T", " ").replace(/\.\d+Z$/, " UTC");
    this.say(`A draft of ${o.output} was kept on ${when} (${n} block${n === 1 ? "" : "s"}): ${draftPath(o.output)}`);
    const what = await this.p.select(
      {
        message: "Resume the draft?",
        choices: [
          { name: "Resume the draft", value: "resume" },
          { name: o.edit !== undefined ? `Open ${o.edit} as saved (discard the draft)` : "Start over (discard the draft)", value: "discard" },
        ],
      },
      this.io,
    );
    if (what === "resume") return d.state;
    removeDraft(o.output);
    return undefined;
  }

  /**
   * Ctrl-C with work not saved: back to the wizard, quit keeping the draft, or quit discarding it.
   * A second Ctrl-C (at this question) quits and keeps the draft.
   */
  async askOnInterrupt(): Promise<"back" | "keep" | "discard"> {
    this.say("");
    try {
      return await this.p.select(
        {
          message: "Interrupted. Discard your work? (Ctrl-C again quits and keeps the draft)",
          choices: [
            { name: "No, go back to the plan", value: "back" as const },
            { name: `Quit and keep the draft (${path.basename(draftPath(this.output))}; the next plan new/edit offers it)`, value: "keep" as const },
            { name: "Quit and discard the draft", value: "discard" as const },
          ],
        },
        this.io,
      );
    } catch (e) {
      if (isPromptExit(e)) return "keep";
      throw e;
    }
  }

  /** A free draft render on the local instance (plan preview) before anything is paid for. */
  async offerPreview(file: string): Promise<void> {
    if (!(await this.p.confirm({ message: "Preview it first? (rendered locally, free, draft quality)", default: false }, this.io))) return;
    const out = file.replace(/(\.json)?$/i, ".preview.mp4");
    const { runPreview } = await import("./plan-preview-cli.js");
    await runPreview(this.ctx, file, { output: out, reportOnStderr: true });
  }

  /**
   * The video's format and background music (the request's `format` and `enable.music`: the sequence
   * plan has neither, so they go to `generate` as flags). Enter, Enter: vertical, no music flag, as before.
   */
  async askVideo(st: State): Promise<VideoChoice> {
    const v: VideoChoice = {};
    const format = await this.p.select({ message: "Video format", choices: FORMAT_CHOICES, default: "" }, this.io);
    if (format) v.format = format;
    if (format === "custom") {
      const px = (message: string, def: string) =>
        this.p.input(
          { message, default: def, validate: (x) => (/^\d+$/.test(x.trim()) && Number(x) >= 1 && Number(x) <= 5000 ? true : "a whole number of pixels, 1 to 5000") },
          this.io,
        );
      v.width = String(Number(await px("Width in pixels (1 to 5000)", "1080")));
      v.height = String(Number(await px("Height in pixels (1 to 5000)", "1920")));
    }
    if (format) this.sayLookFits(st, v);
    if (await this.p.confirm({ message: "Background music?", default: false }, this.io)) v.music = true;
    return v;
  }

  /** Each look of the plan whose shape differs from the chosen format's: said once. */
  sayLookFits(st: State, v: VideoChoice): void {
    const w = Number(v.width);
    const h = Number(v.height);
    // A custom size is judged by its shape.
    const shape = v.format !== "custom" ? v.format : w > h ? "horizontal" : w === h ? "square" : "vertical";
    const ids = new Set(planOf(st).flatMap((b) => [b.look_id, ...(b.sequences as { look_id?: unknown }[]).map((s) => s.look_id)]));
    for (const l of this.looks) {
      const note = ids.has(l.id) ? lookFitNote(l.look_name, l.format, shape) : undefined;
      if (note) this.say(`Note: ${note}.`);
    }
  }

  async offerGenerate(file: string, video: VideoChoice = {}): Promise<void> {
    const next = await this.p.select(
      {
        message: "Make the video now?",
        choices: [
          { name: "No, just keep the plan", value: "no" },
          { name: "Generate it (and wait)", value: "generate" },
          { name: "Generate it, then export it to an MP4", value: "export" },
        ],
      },
      this.io,
    );
    // The MP4 goes beside the plan, named after it, never over a file already there.
    const mp4 = next === "export" ? besidePlan(file) : undefined;
    const args = [
      "mediagen",
      "generate",
      "--plan",
      shellWord(file),
      "--watch",
      ...videoFlags(video),
      ...(mp4 ? ["--export", "--download", shellWord(mp4)] : next === "export" ? ["--export"] : []),
    ];
    const head = `${next === "no" ? "To make it later" : "Running"}:`;
    // A command too wide for the terminal is broken between words, each break ending in a backslash, so it still pastes as one.
    if (head.length + 1 + args.join(" ").length <= this.width) this.say(`${head} ${args.join(" ")}`);
    else this.err.write(`${head}\n${wrapExample(args.join(" "), this.width)}\n`);
    if (next === "no") return;
    const { runGenerate } = await import("./cli.js");
    await runGenerate(this.ctx, { plan: file, watch: true, yes: true, ...video, ...(mp4 ? { export: true, download: mp4 } : {}) });
  }
}

/** `plan.json` → `plan.mp4` in the same directory (`plan-2.mp4`… when taken). */
function besidePlan(file: string): string {
  const abs = path.resolve(file);
  const base = path.basename(abs).replace(/\.json$/i, "") || "video";
  for (let n = 1; ; n++) {
    const candidate = path.join(path.dirname(abs), `${base}${n === 1 ? "" : `-${n}`}.mp4`);
    if (!fs.existsSync(candidate)) return candidate;
  }
}

export async function runWizard(ctx: CommandContext, o: WizardOptions): Promise<void> {
  const env = (ctx as { env?: Env }).env ?? {};
  const stdinTTY = (ctx.io.stdin as { isTTY?: boolean }).isTTY === true;
  if (!stdinTTY || !ctx.io.isStderrTTY || !ctx.opts.input || isCI(env)) {
    throw new CliError(NO_TTY, EXIT.usage, "no_terminal");
  }
  const outDir = path.dirname(path.resolve(o.output));
  if (!fs.statSync(outDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CliError(`--output: ${outDir} is not a directory`, EXIT.usage, "invalid_value", "--output");
  }
  let st: State | undefined;
  if (o.edit !== undefined) {
    const { loadPlan } = await import("./plan-io.js");
    const loaded = await loadPlan(ctx, o.edit, "<file>");
    if (loaded.parseError) throw new CliError(`plan edit: ${loaded.parseError.message}`, EXIT.usage, "invalid_json", "<file>");
    st = fromPlan(loaded.plan);
  }
  const engine = await ctx.engine();
  const w = new Wizard(ctx, engine, o.output);
  if (st) w.baseline = JSON.stringify(st);
  try {
    await w.load();
    st = (await w.offerDraft(o)) ?? st;
    if (!st?.voice) {
      const voice = await w.pickVoice("Default voice", st?.voice);
      st = st ? { ...st, voice } : { voice, look: "", blocks: [] };
    }
    if (!st.look) st.look = await w.pickLook("Default look");
  } catch (e) {
    if (isPromptExit(e)) throw new CliError("Interrupted: nothing was saved.", EXIT.interrupted, "interrupted");
    throw e;
  }
  await runKeepingDraft(w, st, o);
}

/** The wizard's menu until it ends; a Ctrl-C with unsaved work asks before the draft is discarded. */
async function runKeepingDraft(w: Wizard, st: State, o: WizardOptions): Promise<void> {
  for (;;) {
    try {
      await w.run(st, o);
      return;
    } catch (e) {
      if (!isPromptExit(e)) throw e;
      if (w.saved) throw new CliError(`Interrupted (the plan was saved: ${w.saved}).`, EXIT.interrupted, "interrupted");
      if (!w.dirty(st)) throw new CliError("Interrupted: nothing was saved.", EXIT.interrupted, "interrupted");
      w.keep(st);
      const choice = await w.askOnInterrupt();
      if (choice === "back") continue;
      if (choice === "discard") {
        removeDraft(o.output);
        throw new CliError("Interrupted: nothing was saved (the draft was discarded).", EXIT.interrupted, "interrupted");
      }
      const again =
        o.edit !== undefined
          ? `mediagen plan edit ${shellWord(o.edit)}${o.output !== o.edit ? ` -o ${shellWord(o.output)}` : ""}`
          : `mediagen plan new -o ${shellWord(o.output)}`;
      throw new CliError(
        `Interrupted: the plan was not saved; your work is kept in ${draftPath(o.output)}. \`${again}\` offers to resume it.`,
        EXIT.interrupted,
        "interrupted",
      );
    }
  }
}
