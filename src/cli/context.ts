/**
 * The context a command receives (the `gh` Factory pattern): IO policy, resolved configuration and
 * a lazily created engine. Nothing heavy is loaded until a command asks for it.
 */
import { serviceBody } from "../engine/service-body.js";
import type { Engine, Target } from "../engine/engine.js";
import type { LocalInstance } from "../features/local.js";
import type { PreviewInput, PreviewResult } from "../features/generation/preview-types.js";
import { mediagenHome, type Env } from "../config/paths.js";
import { readConfig, resolveProfile, resolveSettings } from "../config/profiles.js";
import { resolveKey } from "../config/credentials.js";
import { InvalidEnvError, readEnv } from "../config/env.js";
import { setNoticeSink } from "../engine/notices.js";
import { registerSecret } from "../engine/redact.js";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "../engine/timeouts.js";
import { CliError, EXIT, type DownloadOptions, type GlobalOptions, type ResolvedConfig, type WaitOptions, type WaitSpec } from "./types.js";
import { isCI, type FrameIO } from "./io.js";
import { GuardedEngine } from "./guarded-engine.js";
import { defaultQuietLines, toJson } from "./output.js";
import { createTracer, type Trace } from "./debug.js";
import type { MultiWaitSpec, WaitOutcome } from "./wait.js";
import type { SaveOptions } from "./download.js";
import { withGlobalFlags } from "./resume.js";
import { envSetting } from "./env-setting.js";
import { parseDuration } from "./parse.js";
import type { Explain } from "./errors.js";
import type { JobStart, JobUpdate } from "./journal.js";
import { defaultRuntime, type InterruptOptions, type Runtime } from "./runtime.js";
import type { CommandContext, Resolution } from "./command-context.js";

/** How long closing the engine may take once the command is over (an abandoned call must not hold the exit). */
const CLOSE_LIMIT_MS = 1_000;

export type { Resolution };

export class CliContext implements CommandContext {
  readonly trace: Trace | undefined;
  private resolution?: Resolution;
  private enginePromise?: Promise<Engine>;
  private instancePromise?: Promise<LocalInstance>;
  private noticeSinkSet = false;
  private noticeSinkBefore: ((message: string) => void) | undefined;
  /** When the last announced rate-limit wait ends (ms); undefined: none announced yet. */
  private rateLimitSaidUntil: number | undefined;
  /** The journal could not be written: said once per command. */
  private journalWarned = false;
  /** Jobs this process recorded already: a start told twice (by the engine and by batch) is one row. */
  private readonly recorded = new Set<string>();
  /** A target chosen by the command (download follows the journal): beats the configuration, not flags. */
  private targetOverride?: { target: Target; baseUrl?: string; profile?: string };
  /** The running command was given `--show`: every file it saves is drawn in the terminal (terminal-picture.ts). */
  showPictures = false;
  /** What the running command told about its flags and request, for its errors (see explain()). */
  private explaining: Pick<Explain, "flagFor" | "body"> = {};

  constructor(
    readonly io: FrameIO,
    readonly opts: GlobalOptions,
    readonly env: Env,
    readonly version: string,
    /** Ctrl-C, the clock and an injected engine (src/cli/runtime.ts); by default never interrupted, real timers. */
    readonly runtime: Runtime = defaultRuntime(),
  ) {
    this.trace = createTracer(io.stderr, opts.debug);
  }

  get home(): string {
    return mediagenHome(this.env);
  }

  /**
   * Talk to this target (and base URL, profile) unless the command line names one: `download` reads
   * a job where it was started. Only before the engine is first used.
   */
  useTarget(t: { target: Target; baseUrl?: string | null; profile?: string }): void {
    if (this.resolution || this.enginePromise !== undefined) throw new Error("useTarget after the target was resolved");
    this.targetOverride = {
      target: t.target,
      ...(t.baseUrl ? { baseUrl: t.baseUrl } : {}),
      ...(t.profile ? { profile: t.profile } : {}),
    };
  }

  /** Settings and key, resolved once: flag > env > profile > default. */
  resolve(): Resolution {
    if (this.resolution) return this.resolution;
    const home = this.home;
    const o = this.targetOverride;
    // A target the command chose counts as a flag, unless the line gave one (flags always win).
    const flags =
      o && this.opts.target === undefined && this.opts.baseUrl === undefined && this.opts.profile === undefined
        ? { target: o.target, baseUrl: o.baseUrl, profile: o.profile ?? this.opts.profile }
        : { target: this.opts.target, baseUrl: this.opts.baseUrl, profile: this.opts.profile };
    const settings = resolveSettings(flags, this.env, readConfig(home));
    // Checked before any request: a bad value must not surface only after a paid start, at its wait.
    this.pollInterval();
    const target = settings.target.value;
    const { key, origin, warning } = resolveKey(this.env, home, settings.profile.value, target);
    // Whatever its format, the key in use is masked in everything printed on stderr from now on.
    registerSecret(key);
    if (warning) this.io.warn(`Warning: ${warning}. Continuing as if no key were stored.`);
    const config: ResolvedConfig = {
      profile: settings.profile.value,
      target,
      baseUrl: target === "hosted" ? settings.baseUrl.value : undefined,
      keySource: origin === "none" ? (target === "local" ? "local-default" : "none") : origin,
      home,
    };
    this.trace?.(
      `profile ${config.profile} (${settings.profile.source}), target ${target} (${settings.target.source})` +
        (target === "hosted" ? `, base URL ${config.baseUrl ?? "unset"} (${settings.baseUrl.source})` : "") +
        `, key from ${config.keySource}, home ${home}`,
    );
    this.resolution = { config, settings, key };
    return this.resolution;
  }

  /**
   * How long one request to the hosted service may take, retries included: --request-timeout, else
   * MEDIAGEN_REQUEST_TIMEOUT, else 60 s. A bad value is a usage error (exit 2).
   */
  requestTimeoutMs(): number {
    const flag = this.opts.requestTimeout;
    if (flag !== undefined) {
      const ms = parseDuration(flag, "--request-timeout");
      if (!(ms > 0)) throw new CliError(`--request-timeout: must be more than 0, got "${flag}"`, EXIT.usage, "invalid_value", "--request-timeout");
      return ms;
    }
    try {
      return readEnv("MEDIAGEN_REQUEST_TIMEOUT", this.env) ?? DEFAULT_REQUEST_TIMEOUT_MS;
    } catch (e) {
      if (e instanceof InvalidEnvError) throw new CliError(e.message, EXIT.usage, "invalid_value", "MEDIAGEN_REQUEST_TIMEOUT");
      throw e;
    }
  }

  /** The request timeout when the user set one (flag or MEDIAGEN_REQUEST_TIMEOUT): it then bounds 429 waits too. */
  userRequestTimeoutMs(): number | undefined {
    if (this.opts.requestTimeout === undefined && !this.env.MEDIAGEN_REQUEST_TIMEOUT) return undefined;
    return this.requestTimeoutMs();
  }

  /**
   * A call waits out a 429: said on stderr (an NDJSON event with --json), so a wait of up to a
   * minute is not mistaken for a hang: the first wait of the command, then each wait of a second or
   * more that ends later than the one already announced (several jobs polled in one window say it
   * once). Never on stdout.
   */
  rateLimited(waitMs: number): void {
    const now = Date.now();
    const said = this.rateLimitSaidUntil;
    if (said !== undefined && (waitMs < 1000 || now + waitMs <= said + 1000)) return;
    this.rateLimitSaidUntil = now + waitMs;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    this.io.info(this.opts.json ? JSON.stringify({ event: "rate_limited", retry_in_s: seconds }) : `rate limited by the service; retrying in ${seconds} s`);
  }

  /** Only the profile's name: the config commands must work even when a stored setting is bad. */
  profileName(): string {
    return resolveProfile({ profile: this.opts.profile }, this.env).value;
  }

  async config(): Promise<ResolvedConfig> {
    return this.resolve().config;
  }

  /** The local instance under $MEDIAGEN_HOME (the `local` commands and the local target). */
  localInstance(): Promise<LocalInstance> {
    this.instancePromise ??= (async () => {
      // Slow work inside the instance (the catalog's first pictures) is said on stderr while this command runs.
      this.noticeSinkBefore = setNoticeSink((m) => this.io.info(this.opts.json ? JSON.stringify({ event: "waiting", message: m }) : m));
      this.noticeSinkSet = true;
      const { openLocalInstance, rateLimitFromEnv } = await import("../features/local.js");
      // The same variables and parser as `mediagen serve`: an in-process instance limits alike, and a
      // value it cannot use is a usage error here too.
      const rateLimit = envSetting(() => rateLimitFromEnv(this.env));
      return openLocalInstance({ home: this.home, worker: "detached", rateLimit });
    })();
    return this.instancePromise;
  }

  /** `plan preview`: renders a plan on the local instance whatever the target; nothing is debited. */
  async previewPlan(input: PreviewInput): Promise<PreviewResult> {
    const instance = await this.localInstance();
    const { previewPlan } = await import("../features/local.js");
    return previewPlan(instance, input);
  }

  engine(): Promise<Engine> {
    this.enginePromise ??= this.createEngine();
    return this.enginePromise;
  }

  /** The target that answers: the injected engine's, else the resolved configuration's. */
  async target(): Promise<Target> {
    return this.runtime.engine ? (await this.engine()).target : this.resolve().config.target;
  }

  /**
   * Registers a Ctrl-C handler (the terminal hanging up counts, and SIGTERM with `terminate`) for as
   * long as it can act; returns its removal.
   */
  onInterrupt(handler: () => void, opts?: InterruptOptions): () => void {
    return this.runtime.signals.onInterrupt(handler, opts);
  }

  private async createEngine(): Promise<Engine> {
    const engine = await this.targetEngine();
    // The hosted client made here traces its HTTP requests itself; other engines are traced per call.
    const traced =
      this.trace && (this.runtime.engine !== undefined || engine.target === "local") ? new (await import("./traced-engine.js")).TracedEngine(engine, this.trace) : engine;
    return new GuardedEngine(traced, {
      onInterrupt: (handler) => this.onInterrupt(handler),
      onRateLimited: (ms) => this.rateLimited(ms),
      onStarted: (op, input, res) => this.recordStarted(op, input, res),
    });
  }

  /** The injected engine, else the local instance's or the hosted client for the resolved target. */
  private async targetEngine(): Promise<Engine> {
    if (this.runtime.engine) return this.runtime.engine();
    const { config, key } = this.resolve();
    if (config.target === "local") {
      const instance = await this.localInstance();
      const bound = this.userRequestTimeoutMs();
      return instance.engine(key ?? instance.defaultKey(), undefined, bound !== undefined ? { requestTimeoutMs: bound } : {});
    }
    const { HostedEngine } = await import("../hosted/hosted-engine.js");
    return new HostedEngine({ ...this.hostedOptions(), warn: (line) => this.io.warn(`Warning: ${line}`) });
  }

  /**
   * The hosted client's settings for the resolved profile: base URL, key, user agent, proxy
   * environment, request deadline and --debug tracing (the hosted engine's, and `mediagen api`'s).
   */
  hostedOptions(): import("../hosted/client.js").HttpClientOptions {
    const { config, key } = this.resolve();
    if (!key) {
      throw new CliError(
        `Not logged in: profile "${config.profile}" has no API key for the hosted target. ` +
          "Run `mediagen auth login --target hosted --base-url <url>` (or pipe the key to `mediagen auth login --with-key`), or set MEDIAGEN_API_KEY.",
        EXIT.auth,
        "not_logged_in",
      );
    }
    if (!config.baseUrl) {
      throw new CliError(
        "The hosted target needs a base URL: pass --base-url, set MEDIAGEN_BASE_URL, or run `mediagen config set base_url <url>`.",
        EXIT.usage,
        "missing_base_url",
        "base_url",
      );
    }
    return {
      baseUrl: config.baseUrl,
      apiKey: key,
      userAgent: `mediagen/${this.version} (node ${process.versions.node}; ${process.platform})`,
      env: this.env,
      requestTimeoutMs: this.requestTimeoutMs(),
      rateWaitsBounded: this.userRequestTimeoutMs() !== undefined,
      ...(this.trace ? { debug: this.trace } : {}),
    };
  }

  /**
   * Tells the frame which flag filled each request field (and the request), so a service error about
   * a field names the flag: `--ref: file not found: nofile.png` rather than `references[0].url: …`.
   */
  explainWith(flagFor: (field: string) => string | undefined, body?: Record<string, unknown>): void {
    this.explaining = { flagFor, ...(body ? { body } : {}) };
  }

  /** The space the key in use belongs to, on the local target (undefined elsewhere or when unknown). */
  async localSpace(): Promise<{ id: string; name: string; plan: string; credits: number } | undefined> {
    if (this.runtime.engine || this.resolve().config.target !== "local") return undefined;
    const instance = await this.localInstance();
    return instance.spaceForKey(this.resolve().key ?? instance.defaultKey());
  }

  /** What the frame says with an error: the command's flags, and how to fix the usual ones. */
  async explain(err: unknown): Promise<Explain> {
    const hints: string[] = [];
    const e = (err && typeof err === "object" ? err : {}) as { name?: string; status?: number; code?: string; field?: string; message?: string; body?: unknown };
    if (e.name === "ApiError") {
      if (e.code === "model_not_found" || (e.field === "model" && /unknown model|model not found/i.test(e.message ?? ""))) {
        const meant = await this.meantModel().catch(() => undefined);
        hints.push(`${meant ? `Did you mean ${meant}? ` : ""}The models this target offers: mediagen asset models`);
      }
      if (e.status === 402) hints.push(await this.creditsHint(e.body, e.message ?? "").catch(() => "Add credits to the space, then try again."));
    }
    return { ...this.explaining, hints };
  }

  /** The model the request named, as it was probably meant (`imgA-5` → `imgA-4`), from the free list. */
  private async meantModel(): Promise<string | undefined> {
    const typed = this.explaining.body?.model;
    if (typeof typed !== "string") return undefined;
    const { meantName } = await import("./did-you-mean.js");
    const { models } = await (await this.engine()).assetModels({});
    return meantName(
      typed,
      models.map((m) => m.name),
    );
  }

  private async creditsHint(body: unknown, message: string): Promise<string> {
    const b = (body && typeof body === "object" ? body : {}) as { required?: unknown; available?: unknown };
    // `{error, required, available}`, or the envelope's words: "32 required, 1 available".
    const said = /([\d.]+) required, ([\d.]+) available/.exec(message);
    const [required, available] =
      typeof b.required === "number" && typeof b.available === "number" ? [b.required, b.available] : said ? [Number(said[1]), Number(said[2])] : [NaN, NaN];
    const short = Number.isFinite(required - available) && required > available ? Math.ceil(required - available) : undefined;
    if ((await this.target()) === "hosted") {
      return `Add credits to the space of this key in the service's dashboard${short ? ` (at least ${short} more)` : ""}, then try again.`;
    }
    const space = await this.localSpace().catch(() => undefined);
    const amount = short !== undefined ? String(Math.max(short, 1)) : "<credits>";
    return space
      ? `Add credits with: mediagen local credits add ${space.id} ${amount}`
      : `Add credits with: mediagen local credits add <space_id> ${amount} (the spaces: mediagen local spaces list)`;
  }

  /**
   * Records jobs this command started in the journal (src/cli/journal.ts), with the target, base
   * URL and profile that started them. A journal that cannot be written is a warning, never a failure:
   * the job is started and paid for either way.
   */
  async recordJobs(jobs: ReadonlyArray<Omit<JobStart, "target" | "base_url" | "profile">>): Promise<void> {
    const fresh = jobs.filter((j) => !this.recorded.has(`${j.kind}:${j.id}`));
    if (!fresh.length) return;
    try {
      const target = await this.target();
      const { config } = this.resolve();
      const { recordStart } = await import("./journal.js");
      recordStart(
        this.home,
        fresh.map((j) => ({ ...j, target, base_url: target === "hosted" ? (config.baseUrl ?? null) : null, profile: config.profile })),
      );
      for (const j of fresh) this.recorded.add(`${j.kind}:${j.id}`);
    } catch (e) {
      this.journalProblem(e);
    }
  }

  /**
   * Records the jobs a start's answer names, as its life says (src/features/lives.ts). A result the
   * answer carries itself (a script's text) is saved beside the history, so `download` can give it.
   */
  async recordStarted(op: string, input: Record<string, unknown>, res: unknown): Promise<void> {
    try {
      const { startedBy } = await import("../features/lives.js");
      const jobs = startedBy(op, input, res);
      const rows = await Promise.all(
        jobs.map(async ({ text, ...j }) => {
          if (text === undefined) return j;
          const { saveStartText } = await import("./journal.js");
          return { ...j, saved: saveStartText(this.home, j.id, text) };
        }),
      );
      await this.recordJobs(rows);
    } catch (e) {
      this.journalProblem(e);
    }
  }

  /** Records what became of jobs (status, saved file) that the journal knows; others are not recorded. */
  async recordUpdates(updates: ReadonlyArray<Omit<JobUpdate, "target" | "kind"> & { kind?: JobUpdate["kind"] }>): Promise<void> {
    if (!updates.length) return;
    try {
      const target = await this.target();
      const { readHistory, recordUpdate } = await import("./journal.js");
      const known = readHistory(this.home).filter((j) => j.target === target);
      const keys = new Set(known.map((j) => `${j.kind}:${j.id}`));
      // An update without its kind takes the kind the history has for its id.
      const kindOf = (id: string) => known.find((j) => j.id === id)?.kind;
      const rows = updates.flatMap((u) => {
        const kind = u.kind ?? kindOf(u.id);
        return kind && keys.has(`${kind}:${u.id}`) ? [{ ...u, kind, target }] : [];
      });
      recordUpdate(this.home, rows);
    } catch (e) {
      this.journalProblem(e);
    }
  }

  private journalProblem(e: unknown): void {
    this.trace?.(`history: ${e instanceof Error ? e.message : String(e)}`);
    if (this.journalWarned) return;
    this.journalWarned = true;
    this.io.warn(`Warning: could not write the history in ${this.home} (${e instanceof Error ? e.message : String(e)}); the job itself is not affected.`);
  }

  print<T>(result: T, human: (r: T) => string[], quietLines?: (r: T) => string[]): void {
    if (this.opts.json) {
      this.io.out(toJson(serviceBody(result)));
      return;
    }
    const lines = this.opts.quiet ? (quietLines ?? defaultQuietLines)(result) : human(result);
    for (const line of lines) this.io.out(line);
  }

  /** MEDIAGEN_POLL_INTERVAL, the default of --interval (undefined: the job kind's schedule). */
  pollInterval(): number | undefined {
    return envSetting(() => readEnv("MEDIAGEN_POLL_INTERVAL", this.env));
  }

  /** Wait options with --interval, or else MEDIAGEN_POLL_INTERVAL. */
  withPollInterval(opts: WaitOptions): WaitOptions {
    if (opts.intervalMs !== undefined) return opts;
    const intervalMs = this.pollInterval();
    return intervalMs === undefined ? opts : { ...opts, intervalMs };
  }

  async wait<T>(spec: WaitSpec<T>, opts: WaitOptions = {}): Promise<T> {
    const [{ runWait }, { createReporter }] = await Promise.all([import("./wait.js"), import("./wait-report.js")]);
    const { clock } = this.runtime;
    return runWait({ ...spec, resume: withGlobalFlags(this.opts, spec.resume) }, this.withPollInterval(opts), {
      now: () => clock.now(),
      sleep: (ms, signal) => clock.sleep(ms, signal),
      timer: (ms, signal) => clock.sleep(ms, signal),
      onInterrupt: (handler) => this.onInterrupt(handler),
      reporter: await createReporter(this.io, [spec.label], this.opts.json),
      printFinal: (last, text) => this.print(last, () => [`${spec.label}: ${text}`]),
      target: await this.target(),
      ...(this.trace ? { trace: this.trace } : {}),
    });
  }

  /** Several jobs under one deadline; `interrupt` aborting is Ctrl-C. Endings are returned, not thrown. */
  async waitAll<T>(spec: MultiWaitSpec<T>, opts: WaitOptions, interrupt: AbortSignal): Promise<WaitOutcome<T>> {
    const [{ runWaitAll }, { createReporter }] = await Promise.all([import("./wait.js"), import("./wait-report.js")]);
    const { clock } = this.runtime;
    return runWaitAll(spec, this.withPollInterval(opts), {
      now: () => clock.now(),
      sleep: (ms, signal) => clock.sleep(ms, signal),
      timer: (ms, signal) => clock.sleep(ms, signal),
      onInterrupt: (handler) => {
        if (interrupt.aborted) handler();
        interrupt.addEventListener("abort", handler, { once: true });
        return () => interrupt.removeEventListener("abort", handler);
      },
      reporter: await createReporter(
        this.io,
        spec.jobs.map((j) => j.label),
        this.opts.json,
      ),
      target: await this.target(),
      ...(this.trace ? { trace: this.trace } : {}),
    });
  }

  async download(url: string, dir: string, name: string, opts: DownloadOptions = {}): Promise<string> {
    return this.save(url, dir, name, opts);
  }

  /** ctx.download with the frame's options: file: links only from the local engine, Ctrl-C, a resume hint. */
  async save(url: string, dir: string, name: string, opts: SaveOptions = {}): Promise<string> {
    const { download } = await import("./download.js");
    const saved = await download(
      url,
      dir,
      name,
      // A partial file is removed on SIGTERM too, not only on Ctrl-C.
      { onInterrupt: (handler) => this.onInterrupt(handler, { terminate: true }), env: this.env, ...opts, ...(await this.linkPolicy()) },
      this.trace,
    );
    if (this.showPictures) await this.showPicture(saved);
    return saved;
  }

  /**
   * Draws a saved picture (a video's first frame) in the terminal when it can (kitty, iTerm2) and
   * stdout is that terminal; says nothing otherwise, and never with --json.
   */
  async showPicture(file: string): Promise<boolean> {
    if (this.opts.json || !this.io.isStdoutTTY) return false;
    const { showPicture } = await import("./terminal-picture.js");
    return showPicture({ write: (text) => this.io.stdout.write(text), isTTY: this.io.isStdoutTTY, env: this.env }, file);
  }

  /** Local engine: its media are files; hosted: links are checked against the service's base URL. */
  private async linkPolicy(): Promise<{ allowLocal: boolean; serviceBaseUrl?: string }> {
    if ((await this.target()) === "local") return { allowLocal: true };
    const baseUrl = this.resolve().config.baseUrl;
    return { allowLocal: false, ...(baseUrl ? { serviceBaseUrl: baseUrl } : {}) };
  }

  async readBody(pathOrDash: string): Promise<Record<string, unknown>> {
    const { readJsonBody } = await import("./body.js");
    return readJsonBody(pathOrDash, this.io, this.opts.input && !isCI(this.env));
  }

  /**
   * Releases the engine and the instance so the process can exit. Closing the engine is bounded:
   * a poll abandoned at a deadline may still hold a connection the engine would wait for.
   */
  async close(): Promise<void> {
    if (this.noticeSinkSet) setNoticeSink(this.noticeSinkBefore);
    // An injected engine belongs to whoever injected it.
    const engine = this.enginePromise && !this.runtime.engine ? await this.enginePromise.catch(() => undefined) : undefined;
    if (engine) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        engine.close().catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, CLOSE_LIMIT_MS);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    }
    const instance = this.instancePromise ? await this.instancePromise.catch(() => undefined) : undefined;
    try {
      await instance?.close();
    } catch {
      // closing is best effort: the command's result is already out
    }
  }
}
