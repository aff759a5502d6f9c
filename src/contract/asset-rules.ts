/**
 * The spec's fixed lists and numbers of asset start, in one module without zod (the contract, the
 * catalog's `input_schema`, the local checks and the CLI read them from here).
 */

/** Named input slots, in their fixed order. */
export const SLOT_NAMES = ["start_image", "end_image", "motion_video", "source_video", "first_frame", "last_frame"] as const;
export type SlotName = (typeof SLOT_NAMES)[number];

/**
 * Slots that need an earlier one filled (spec: "a later slot cannot be given while an earlier one is
 * empty"). `required`: the spec's slot group takes both (motion control: start image plus motion
 * video; first frame plus last frame, both required in the hosted catalog), so the earlier slot is
 * reported as missing; start and end image are both optional, so the later one is refused.
 */
export const SLOT_NEEDS: readonly { later: SlotName; earlier: SlotName; required: boolean }[] = [
  { later: "end_image", earlier: "start_image", required: false },
  { later: "motion_video", earlier: "start_image", required: true },
  { later: "last_frame", earlier: "first_frame", required: true },
];

/** Element names are what follows `@` in the prompt. */
export const ELEMENT_NAME_PATTERN = "^[A-Za-z0-9_-]+$";
/** The least number of images of an element (spec: at least 2 of the same subject, frontal view first). */
export const MIN_ELEMENT_IMAGES = 2;

/** generation_count bounds (spec: 1 to 4). */
export const MIN_GENERATIONS = 1;
export const MAX_GENERATIONS = 4;

/** Whether `prompt` names the element `name` as `@name` (as a whole name, without regard to case). */
export function mentions(prompt: string, name: string): boolean {
  return new RegExp(`@${name.replace(/[-]/g, "\\-")}(?![A-Za-z0-9_-])`, "i").test(prompt);
}

/**
 * The pricing fields the contract names: the spec's, with the reference count under the service's
 * name (hosted-facts: `image_count`). The spec's settings object has no documented name: it is not
 * among them, and no flag sends it.
 */
export const PRICING_FIELDS = ["model", "duration", "resolution", "image_count", "generation_count"] as const;
