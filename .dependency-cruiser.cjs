/**
 * The layer rules of docs/architecture.md, checked by `npm run lint:layers` (part of `npm test`).
 * Paths are relative to the directory depcruise runs in, so the same file checks the repository
 * and the fixture trees of test/unit/layers.test.ts.
 */

/** What a feature keeps for the local target only (its emulator/ folder): handlers, job kinds, tables, renders. */
const FEATURE_LOCAL_ONLY = "^src/features/[^/]+/emulator/";
/** The CLI side: the frame, every feature's client/ folder (its commands), and the MCP server (`mediagen mcp`), which sits beside them. */
const CLI = ["^src/cli/", "^src/features/[^/]+/client/", "^src/mcp/"];
/** The MCP server and the one command that starts it. */
const MCP = "^src/mcp/";
const MCP_COMMAND = "^src/cli/commands/mcp\\.ts$";
/** The modules allowed to open the local target, lazily: the one door from the CLI into it. */
const DOOR_KEEPERS = ["^src/cli/context\\.ts$", "^src/cli/commands/(serve|local|local-[a-z]+|batch|ui)\\.ts$"];
/** The dashboard pages (`mediagen ui`, and `/` of `mediagen serve`) and the two commands that load them. */
const UI = "^src/ui/";
const UI_COMMANDS = "^src/cli/commands/(ui|serve)\\.ts$";
const DOOR = "^src/features/local\\.ts$";
/** The interface commands are typed against (the frame's context implements it). */
const COMMAND_CONTEXT = "^src/cli/command-context\\.ts$";
/** The contracts and the route facts they are made of (each feature's routes.ts: data, no zod). */
const CONTRACT = ["^src/contract/", "^src/features/[^/]+/(contract|routes)\\.ts$"];
/** Read by every layer, media included: it imports nothing, so it drags no layer along. */
const ENV_TABLE = "^src/config/env\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "contract-only-zod",
      comment: "Contracts are data: zod and other contract files only, so both targets and the CLI can load them cheaply.",
      severity: "error",
      from: { path: CONTRACT },
      to: { pathNot: [...CONTRACT, "^node_modules/zod/"] },
    },
    {
      name: "cli-not-local",
      comment:
        "A CLI module never loads the local target (its core, a feature's handlers, job kinds or migrations, SQLite, the media layer, the server): " +
        "it talks to an Engine. The local target is opened only through src/features/local.ts (rule cli-local-door).",
      severity: "error",
      from: { path: CLI },
      to: {
        path: ["^src/local/", "^src/features/worker-main\\.ts$", "^src/media/", "^node_modules/better-sqlite3/"],
      },
    },
    {
      name: "cli-not-emulator",
      comment:
        "A CLI module never loads a feature's emulator (its emulator/ folder); the door keepers (the context, `serve`, `local …`, `batch`, `ui`) may, lazily (rule cli-local-door-lazy).",
      severity: "error",
      from: { path: CLI, pathNot: DOOR_KEEPERS },
      to: { path: FEATURE_LOCAL_ONLY },
    },
    {
      name: "cli-local-door",
      comment:
        "Only the context and the `serve`/`local` commands open the local target, and only by a dynamic import() of src/features/local.ts " +
        "(or a type-only import), so every other command starts without SQLite.",
      severity: "error",
      from: { path: CLI, pathNot: [...DOOR_KEEPERS, COMMAND_CONTEXT] },
      to: { path: DOOR },
    },
    {
      name: "cli-local-door-types",
      comment: "What a command gets from the frame (src/cli/command-context.ts) names the local instance's type, and nothing more of it.",
      severity: "error",
      from: { path: COMMAND_CONTEXT },
      to: { path: DOOR, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "cli-local-door-lazy",
      comment: "Even the door keepers load src/features/local.ts and the features' emulators lazily: a static import would load SQLite for every command.",
      severity: "error",
      from: { path: DOOR_KEEPERS },
      to: { path: [DOOR, FEATURE_LOCAL_ONLY], dynamic: false, dependencyTypesNot: ["type-only", "type-import"] },
    },
    {
      name: "cli-server-only-serve",
      comment: "The HTTP server belongs to `mediagen serve`, which loads it lazily.",
      severity: "error",
      from: { path: CLI, pathNot: "^src/cli/commands/serve\\.ts$" },
      to: { path: "^src/server/" },
    },
    {
      name: "cli-server-lazy",
      comment: "`mediagen serve` loads the server lazily, so `--help` and other commands never do.",
      severity: "error",
      from: { path: "^src/cli/commands/serve\\.ts$" },
      to: { path: "^src/server/", dynamic: false, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "ui-only-from-its-commands",
      comment: "The dashboard pages (src/ui/) are loaded by `mediagen ui` and `mediagen serve` only; the server takes them as an option.",
      severity: "error",
      from: { pathNot: [UI, UI_COMMANDS] },
      to: { path: UI },
    },
    {
      name: "ui-lazy",
      comment: "`mediagen ui` and `mediagen serve` load src/ui/ by dynamic import(), so `--help` and other commands never do.",
      severity: "error",
      from: { path: UI_COMMANDS },
      to: { path: UI, dynamic: false, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "mcp-on-top",
      comment: "src/mcp/ is a front end like the commands: it uses features, the engine and CLI helpers, and nothing but `mediagen mcp` loads it.",
      severity: "error",
      from: { pathNot: [MCP, MCP_COMMAND] },
      to: { path: MCP },
    },
    {
      name: "mcp-lazy",
      comment: "`mediagen mcp` loads src/mcp/ (and the MCP SDK with it) by dynamic import(), so `--help` and other commands never do.",
      severity: "error",
      from: { path: MCP_COMMAND },
      to: { path: MCP, dynamic: false, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "mcp-sdk-only-in-mcp",
      comment: "The MCP SDK is loaded by src/mcp/ only (start-up time of every other command).",
      severity: "error",
      from: { pathNot: MCP },
      to: { path: "^node_modules/@modelcontextprotocol/" },
    },
    {
      name: "emulator-not-client",
      comment: "A feature's emulator (its emulator/ folder) never reaches the CLI side: the frame, any feature's client/ folder, the MCP server.",
      severity: "error",
      from: { path: FEATURE_LOCAL_ONLY },
      to: { path: CLI },
    },
    {
      name: "emulator-across-features",
      comment:
        "A feature's emulator reaches another feature only through that feature's shared modules (its contract, routes, life) or the public part of its emulator (emulator/public/), never its emulator's internals.",
      severity: "error",
      from: { path: "^src/features/([^/]+)/emulator/" },
      to: { path: "^src/features/[^/]+/emulator/", pathNot: ["^src/features/$1/emulator/", "^src/features/[^/]+/emulator/public/"] },
    },
    {
      name: "local-core-not-above",
      comment:
        "The local core never knows the features, the hosted client or the CLI: the features plug into it (src/features/local.ts). " +
        "Type-only imports of the operation table and the feature contracts type its dispatch.",
      severity: "error",
      from: { path: "^src/local/" },
      to: { path: ["^src/features/", "^src/hosted/", "^src/cli/"], pathNot: "^src/features/(operations|routes|[^/]+/contract)\\.ts$" },
    },
    {
      name: "local-core-types-only-from-features",
      comment: "What the local core takes from the features is types only.",
      severity: "error",
      from: { path: "^src/local/" },
      to: { path: "^src/features/(operations|routes|[^/]+/contract)\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "media-node-only",
      comment: "The media layer runs ffmpeg and a TTS: node built-ins, its own files and the environment table, nothing of the service.",
      severity: "error",
      from: { path: "^src/media/" },
      to: { pathNot: ["^src/media/", ENV_TABLE], dependencyTypesNot: ["core"] },
    },
    {
      name: "env-table-leaf",
      comment: "Every layer reads the environment through src/config/env.ts, so it imports nothing.",
      severity: "error",
      from: { path: ENV_TABLE },
      to: {},
    },
    {
      name: "no-circular",
      comment: "Import cycles make load order matter; a cycle through a type-only import is erased at build time and allowed.",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that does not resolve fails at run time.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "^node_modules/" },
    // node_modules may be a symlink to a shared install: packages keep their node_modules/ paths.
    preserveSymlinks: true,
    // Type-only imports are seen (and marked) so the rules can tell them from imports that load code.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
