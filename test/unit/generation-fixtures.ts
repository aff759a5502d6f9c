/** Fixtures shared by the generation tests (unit, scenarios, CLI). */

/** A plan as a caller writes it (loose: tests break it on purpose). */
export interface FixtureMedia {
  asset_id?: string;
  url?: string;
  show?: string;
  start_at?: number;
}
export interface FixtureSequence {
  text: string | null;
  duration_ms?: number;
  look_id?: string;
  action?: string;
  media?: FixtureMedia;
}
export interface FixtureBlock {
  voice_id?: string;
  look_id?: string;
  audio_url?: string;
  avatar_id?: string;
  sequences: FixtureSequence[];
}

/** The example of the issue: two speech blocks, a silent 1500 ms sequence alone in its block, looks per sequence, media in all four show modes. */
export const GOOD_PLAN: readonly FixtureBlock[] = [
  {
    voice_id: "vc_emma",
    look_id: "lk_maya_kitchen",
    sequences: [
      { text: "Welcome to the kitchen.", look_id: "lk_maya_office", media: { url: "https://cdn.example.com/a.png", show: "full" } },
      { text: "Here is how we cook.", action: "smiles", media: { url: "https://cdn.example.com/b.mp4", show: "half", start_at: 1 } },
    ],
  },
  { sequences: [{ text: null, duration_ms: 1500, media: { url: "https://cdn.example.com/c.jpg", show: "background" } }] },
  {
    voice_id: "vc_noah",
    sequences: [{ text: "And that is all.", look_id: "lk_james_car", media: { asset_id: "0123456789abcdef01234567", show: "hide" } }],
  },
];

/** A deep copy of GOOD_PLAN to break. */
export function goodPlan(): FixtureBlock[] {
  return JSON.parse(JSON.stringify(GOOD_PLAN)) as FixtureBlock[];
}
