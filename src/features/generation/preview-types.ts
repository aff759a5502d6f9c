/**
 * What `mediagen plan preview` hands the local instance and gets back (generation/preview.ts). Types
 * only, so the command can name them without loading the local target.
 */

export interface PreviewInput {
  /** The POST /generation/start body: `sequence_plan` (local paths absolute) and request fields. */
  body: Record<string, unknown>;
  /** Where the MP4 goes. */
  outPath: string;
  signal?: AbortSignal;
  /** The step under way ("resolving", a generation step, or an export step) and its percent. */
  onProgress?: (step: string, percent: number) => void;
}

/** An id of the plan the local instance does not have, and what was used instead. */
export interface PreviewSubstitution {
  field: string;
  id: string;
  /** The id used instead, or null when the thing was left out. */
  stood_in: string | null;
  note: string;
}

export interface PreviewSequence {
  block: number;
  index: number;
  text: string | null;
  start_ms: number;
  end_ms: number;
  look_id: string | null;
  media_show: string | null;
}

export interface PreviewResult {
  file: string;
  duration_ms: number;
  width: number;
  height: number;
  /** The full export's size, of which the preview has a quarter of the area. */
  full_width: number;
  full_height: number;
  frames: number;
  sequences: PreviewSequence[];
  substitutions: PreviewSubstitution[];
  warnings: string[];
  /** Milliseconds: building the timeline (speech, media) and rendering it. */
  timings: { build: number; render: number; total: number };
}
