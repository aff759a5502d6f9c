/**
 * The life of each avatar operation (see src/features/life.ts). A create from a prompt and an edit
 * are paid starts (2 credits at 2K, 4 at 4K) that name a new look, polled through its avatar like an
 * asset; a create from images only is free and its look is ready at once. A look saves as its picture.
 */
import { avatarSchedule } from "../../contract/poll.js";
import { avatarCredits, avatarEditCredits } from "../../contract/pricing.js";
import { extOf, resultOf, str, type Body, type FeatureLife, type StartRecord } from "../life.js";

const promptBased = (input: Body) => str(input.prompt) !== undefined;
const resolutionOf = (input: Body) => (input.resolution === "4K" ? "4K" : "2K");
const upscaled = (input: Body) => (input.upscale === true ? ", upscaled (+1.5)" : "");

function lookStarted(input: Body, res: Body, cost: number, status: string): StartRecord[] {
  const look = str(res.look_id);
  const avatar = str(res.avatar_id);
  if (!look || !avatar) return [];
  return [{ kind: "look", id: look, avatar_id: avatar, model: null, cost, status, ...(promptBased(input) ? { prompt: String(input.prompt) } : {}) }];
}

export const avatarLife: FeatureLife = {
  operations: {
    avatarCreate: {
      batch: { kind: "avatar", when: (body) => body.look_id === undefined },
      makes: "look",
      effect: "paid start",
      what: (input) => (promptBased(input) ? `an avatar look generated at ${resolutionOf(input)}` : "an avatar from images"),
      // A prompt wins over images; a look made from images is free.
      price: (input) =>
        promptBased(input)
          ? { credits: avatarCredits(str(input.resolution)), exact: true, basis: `a look generated from the prompt at ${resolutionOf(input)}` }
          : { credits: 0, exact: true, basis: "looks made from the given images are free" },
      // The spec: a look from a prompt starts pending; one made from images is ready at once.
      started: (input, res) => lookStarted(input, res, promptBased(input) ? avatarCredits(str(input.resolution)) : 0, promptBased(input) ? "pending" : "ready"),
      check: () => "`mediagen avatar list` shows whether the avatar was made",
    },
    avatarEdit: {
      batch: { kind: "avatar", when: (body) => body.look_id !== undefined },
      makes: "look",
      effect: "paid start",
      what: (input) => `a new look at ${resolutionOf(input)}${upscaled(input)}`,
      price: (input) => ({
        credits: avatarEditCredits(str(input.resolution), input.upscale),
        exact: true,
        basis: `a new look at ${resolutionOf(input)}${upscaled(input)}`,
      }),
      started: (input, res) => lookStarted(input, res, avatarEditCredits(str(input.resolution), input.upscale), "pending"),
      check: (input) => (str(input.avatar_id) ? `\`mediagen avatar get ${input.avatar_id}\` lists its looks, a new one included if it was made` : undefined),
    },
    avatarStatus: { effect: "read", statusOf: "look" },
    avatarList: { effect: "read" },
    avatarLook: { effect: "read" },
    avatarGet: { effect: "read" },
    resourceAvatars: { effect: "read" },
  },
  jobs: {
    look: {
      kind: "look",
      noun: "look",
      idShape: /^lk_/,
      status: { op: "avatarStatus", request: (ref) => ({ avatar_id: ref.avatar_id, look_id: ref.id }), schedule: avatarSchedule, idField: "look_id" },
      // The status endpoint's words, and the look record's (a look made from images starts `ready`).
      terminal: { done: ["completed", "ready"], failed: ["failed", "error"] },
      refund: "local",
      result: (s) => {
        const url = str(resultOf(s).thumbnail);
        return url ? { url, ext: extOf(url, "png"), type: "picture" } : undefined;
      },
    },
  },
};
