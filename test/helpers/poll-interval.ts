/**
 * Waits in tests poll every 250 ms whatever the target: the spec's hosted schedules (a generation
 * every 5 s) would have the suite sleep most of its time against `serve`. Every environment the
 * test helpers build sets it (MEDIAGEN_POLL_INTERVAL); the schedules themselves are tested where they
 * are the subject (test/unit/cli-wait.test.ts, test/cli/poll-interval.test.ts), with the variable
 * removed (`MEDIAGEN_POLL_INTERVAL: undefined`).
 */
export const TEST_POLL_INTERVAL = "250ms";

/**
 * And the local instance's rate limit is one a test never meets: at 250 ms a file's waits can spend
 * the service's 100 requests a minute of a shared home, and a watch told to come back in 30 s times
 * out (CI saw it twice). The same helpers set it (MEDIAGEN_LOCAL_RATE_LIMIT). Where the limit is the
 * subject, the test sets its own, or the service's `"100"` to check the default's headers and body.
 */
export const TEST_RATE_LIMIT = "100000";
