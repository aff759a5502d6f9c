/** Poll schedules of the spec: the delay before the next poll, given the time already waited. */
export type PollSchedule = (elapsedMs: number) => number;

/** Assets: every 2 to 5 seconds. */
export const assetSchedule: PollSchedule = (elapsed) => (elapsed < 30_000 ? 2_000 : 5_000);
/** Exports: 3 s at first, 5 s after 30 s, 10 s after 2 minutes. */
export const exportSchedule: PollSchedule = (elapsed) => (elapsed < 30_000 ? 3_000 : elapsed < 120_000 ? 5_000 : 10_000);
/** Generation jobs: 5 s, 10 s after 1 minute, 30 s after 5 minutes. */
export const generationSchedule: PollSchedule = (elapsed) => (elapsed < 60_000 ? 5_000 : elapsed < 300_000 ? 10_000 : 30_000);
/** Avatar looks: like assets. */
export const avatarSchedule: PollSchedule = assetSchedule;
/**
 * The local instance is on this machine: poll it faster than the hosted schedules, but polls count
 * against the same 100-a-minute limit, so slow down as the wait grows (about 35 polls in the first
 * half minute, then 30 a minute).
 */
export const localSchedule: PollSchedule = (elapsed) => (elapsed < 5_000 ? 500 : elapsed < 30_000 ? 1_000 : 2_000);

export const RATE_LIMIT_PER_MINUTE = 100;
export const RATE_LIMIT_WINDOW_MS = 60_000;
export const RATE_LIMIT_MESSAGE = "Rate limit exceeded. Maximum 100 requests per minute.";
