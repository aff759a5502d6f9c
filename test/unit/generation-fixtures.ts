/** Fixtures shared by the generation tests (unit, scenarios, CLI). */

/** The example of the issue: two speech blocks, a silent 1500 ms sequence alone in its block, looks per sequence, media in all four show modes. */
export const GOOD_PLAN = [
  {
    voice_id: "vc_emma",
    look_id: "lk_maya_kitchen",
    sequences: [
      { text: "Welcome to the kitchen.", look_id: "lk_maya_office", media: { url: "https://cdn.example.com/a.png", show: "full" } },
      { text: "Here is how we cook.", action: "smiles", media: { url: "https://cdn.example.com/b.mp4", show: "half", trim_start: 1 } },
    ],
  },
  { sequences: [{ text: null, duration_ms: 1500, media: { url: "https://cdn.example.com/c.jpg", show: "background" } }] },
  {
    voice_id: "vc_noah",
    sequences: [{ text: "And that is all.", look_id: "lk_james_car", media: { asset_id: "0123456789abcdef01234567", show: "hide" } }],
  },
];

/** A deep copy of GOOD_PLAN to break. */
export function goodPlan(): typeof GOOD_PLAN {
  return JSON.parse(JSON.stringify(GOOD_PLAN)) as typeof GOOD_PLAN;
}
