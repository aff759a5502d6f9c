/**
 * The CLI's common chunk (scripts/bundle.mjs injects this file into every entry and chunk of the CLI
 * build): the frame, configuration, engine and light contract modules nearly every command loads.
 * Reached from everywhere, they end up in ONE chunk instead of one small chunk per combination of
 * commands that uses them; a short command then reads a few files instead of dozens. Nothing heavy
 * belongs here (no zod, no SQLite, no media layer, no undici): `--help` loads it too.
 */
import "../src/cli/body.ts";
import "../src/cli/context.ts";
import "../src/cli/credits-note.ts";
import "../src/cli/debug.ts";
import "../src/cli/each.ts";
import "../src/cli/env-setting.ts";
import "../src/cli/errors.ts";
import "../src/cli/exit-codes.ts";
import "../src/cli/flags.ts";
import "../src/cli/guarded-engine.ts";
import "../src/cli/help-text.ts";
import "../src/cli/io.ts";
import "../src/cli/journal.ts";
import "../src/cli/output.ts";
import "../src/cli/parse.ts";
import "../src/cli/resume.ts";
import "../src/cli/runtime.ts";
import "../src/cli/types.ts";
import "../src/cli/wait-report.ts";
import "../src/cli/wait.ts";
import "../src/config/credentials.ts";
import "../src/config/env.ts";
import "../src/config/home.ts";
import "../src/config/paths.ts";
import "../src/config/profiles.ts";
import "../src/contract/credits.ts";
import "../src/contract/errors.ts";
import "../src/contract/limits.ts";
import "../src/contract/operation.ts";
import "../src/contract/plans.ts";
import "../src/contract/poll.ts";
import "../src/contract/query.ts";
import "../src/contract/rate-limit.ts";
import "../src/engine/engine.ts";
import "../src/engine/errors.ts";
import "../src/engine/path-params.ts";
import "../src/engine/rate-wait.ts";
import "../src/engine/redact.ts";
import "../src/engine/sleep.ts";
import "../src/engine/timeouts.ts";
import "../src/features/index.ts";
import "../src/features/routes.ts";
// Small modules of the local target and of the asset commands (a few KB together): in their own
// chunks they were one file read each for every local command (src/local/debug.ts, version.ts) and
// every asset command.
import "../src/local/debug.ts";
import "../src/local/version.ts";
import "../src/features/asset/emulator/query.ts";
import "../src/features/asset/emulator/public/record.ts";
import "../src/features/asset/emulator/schema.ts";
