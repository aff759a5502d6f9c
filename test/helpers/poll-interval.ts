/**
 * Waits in tests poll every 250 ms whatever the target: the spec's hosted schedules (a generation
 * every 5 s) would have the suite sleep most of its time against `serve`. Every environment the
 * test helpers build sets it (MEDIAGEN_POLL_INTERVAL); the schedules themselves are tested where they
 * are the subject (test/unit/cli-wait.test.ts, test/cli/poll-interval.test.ts), with the variable
 * removed (`MEDIAGEN_POLL_INTERVAL: undefined`).
 */
export const TEST_POLL_INTERVAL = "250ms";
