import { engineNoticeText } from '../core/engineNotices';
import type { ChangeSource } from '../core/changeSource';
import type { Scheduler } from '../rules/clock';
import type { EngineEvent } from '../core/engineEvents';
import type { FileAccess } from '../core/fileAccess';
import type { SessionSnapshot } from '../core/snapshot';
import type { EngineOptions, TranscriptLagEngine } from '../core/engine';
import { errorText } from './errorText';
import type { ExtensionSettings } from './settings';

/** The engine's channelMaxAgeMs for a retention in days (0: never prune). */
export function channelMaxAgeMs(settings: Pick<ExtensionSettings, 'channelRetentionDays'>): number {
  return Math.round(settings.channelRetentionDays * 24 * 60 * 60 * 1000);
}

/** The engine's poll: the safety net under the change source (network file systems, WSL). */
export const TICK_INTERVAL_MS = 1000;
/**
 * While there is no Claude dir, one stat this often is all the extension does:
 * nothing measurable, yet Claude Code's first run is noticed within seconds.
 */
export const CLAUDE_DIR_POLL_MS = 5000;

/** The part of the LogOutputChannel the host writes to. */
export interface HostLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Kept free of `vscode` (types aside) so its lifecycle — no Claude dir, the dir
 * appearing, settings changes — is tested in plain mocha with a manual clock.
 */
export interface EngineHostDeps {
  log: HostLog;
  files: FileAccess;
  /** The engine's time, and the timers of the tick loop and the Claude dir poll; tests pass a manual one. */
  clock: Scheduler;
  /** Async so the engine's code (zod, chokidar) is only loaded once there is a Claude dir to follow. */
  createEngine(opts: EngineOptions): Promise<TranscriptLagEngine>;
  /**
   * The change source; `onReady` is for it to call once it reports changes (a watcher's own scan
   * ends a moment after the engine's ready): the host then polls, so nothing appended in between
   * waits for the next tick.
   */
  createChangeSource?(onReady: () => void): Promise<ChangeSource>;
  claudeDirOfSetting(setting: string): string;
  workspaceFolders(): string[];
  /** Every engine event, in order. */
  onEvent(e: EngineEvent): void;
  /** Sessions may have changed (engine started, stopped, ticked). */
  onChanged(): void;
}

/**
 * Owns the engine's lifecycle: waits for the Claude dir to exist, builds the
 * engine, ticks it, reconfigures it on settings and workspace changes, and
 * rebuilds it when the Claude dir setting changes.
 */
export class EngineHost {
  private engine: TranscriptLagEngine | undefined;
  /** The engine whose history found at start is indexed (historyIndexed). */
  private indexedEngine: TranscriptLagEngine | undefined;
  private engineSubscription: { dispose(): unknown } | undefined;
  private tickTimer: unknown;
  private dirPollTimer: unknown;
  private inFlight: Promise<void> | undefined;
  private disposed = false;
  private claudeDir = '';
  /** The missing Claude dir being polled for, so the log says so once, not every poll. */
  private waitingFor: string | undefined;
  /** Serialises start/stop/reconfigure so a quick settings change cannot start two engines. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: EngineHostDeps,
    private settings: ExtensionSettings,
  ) {}

  current(): TranscriptLagEngine | undefined {
    return this.engine;
  }

  /**
   * Whether every session there is to show is known: the engine has indexed the history it found at
   * start, or there is no Claude dir to follow. A report restored after a reload waits for it before
   * it says its session is gone.
   */
  historyIndexed(): boolean {
    if (this.engine) return this.indexedEngine === this.engine;
    return this.waitingFor !== undefined;
  }

  currentClaudeDir(): string {
    return this.claudeDir;
  }

  sessions(): SessionSnapshot[] {
    return this.engine?.sessions() ?? [];
  }

  session(sessionId: string): SessionSnapshot | undefined {
    return this.engine?.session(sessionId);
  }

  start(): Promise<void> {
    return this.enqueue(() => this.startNow());
  }

  /** One poll now (tests and the refresh command use it); resolves when read. */
  tick(): Promise<void> {
    return this.enqueue(() => this.tickNow(true));
  }

  applySettings(next: ExtensionSettings): Promise<void> {
    const prev = this.settings;
    this.settings = next;
    return this.enqueue(async () => {
      if (this.deps.claudeDirOfSetting(next.claudeDir) !== this.claudeDir) {
        this.deps.log.info(`Claude dir setting changed: restarting the engine`);
        await this.stopNow();
        await this.startNow();
      } else if (
        this.engine &&
        (prev.sessions !== next.sessions || prev.recentCalls !== next.recentCalls || prev.channelRetentionDays !== next.channelRetentionDays)
      ) {
        await this.engine.reconfigure({ scope: next.sessions, recentCalls: next.recentCalls, channelMaxAgeMs: channelMaxAgeMs(next) });
        this.deps.onChanged();
      }
    });
  }

  workspaceFoldersChanged(): Promise<void> {
    return this.enqueue(async () => {
      if (!this.engine) return;
      await this.engine.reconfigure({ workspaceFolders: this.deps.workspaceFolders() });
      this.deps.onChanged();
    });
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(step).catch((err) => this.deps.log.error(`engine: ${errorText(err)}`));
    this.queue = run;
    return run;
  }

  private async startNow(): Promise<void> {
    if (this.disposed || this.engine) return;
    // An explicit start (e.g. after Install Hook created the dir) replaces a pending poll.
    if (this.dirPollTimer !== undefined) this.deps.clock.clearTimeout(this.dirPollTimer);
    this.dirPollTimer = undefined;
    this.claudeDir = this.deps.claudeDirOfSetting(this.settings.claudeDir);
    const stat = await this.deps.files.stat(this.claudeDir);
    if (!stat?.isDirectory) {
      if (this.waitingFor !== this.claudeDir) {
        this.deps.log.info(`No Claude dir at ${this.claudeDir}; checking again every ${CLAUDE_DIR_POLL_MS / 1000}s`);
        this.waitingFor = this.claudeDir;
      }
      this.scheduleDirPoll();
      return;
    }
    this.waitingFor = undefined;
    const engine = await this.deps.createEngine({
      claudeDir: this.claudeDir,
      workspaceFolders: this.deps.workspaceFolders(),
      scope: this.settings.sessions,
      files: this.deps.files,
      clock: this.deps.clock,
      changes: await this.deps.createChangeSource?.(() => void this.tick()),
      recentCalls: this.settings.recentCalls,
      channelMaxAgeMs: channelMaxAgeMs(this.settings),
    });
    this.engine = engine;
    const events = engine.onEvent((e) => this.deps.onEvent(e));
    // Limits the engine hit (too many open files, a hook flood) go to the log, never unsaid.
    const notices = engine.onNotice((n) => this.deps.log.warn(engineNoticeText(n)));
    this.engineSubscription = { dispose: () => (events.dispose(), notices.dispose()) };
    // Resolves once each file's history end is fixed: lines appended from then on are live while
    // the history is still being indexed; each session shows once its own history is in.
    const ready = await engine.start();
    const mib = (ready.historyBytes / 2 ** 20).toFixed(1);
    this.deps.log.info(`Following sessions under ${this.claudeDir} (scope: ${this.settings.sessions}): ${ready.files} transcripts, ${mib} MiB of history to index`);
    engine.indexed().then(
      () => {
        if (this.engine !== engine) return;
        this.indexedEngine = engine;
        this.deps.log.info(`History indexed (${mib} MiB)`);
        this.deps.onChanged();
      },
      (err: unknown) => this.deps.log.warn(`indexing history failed: ${errorText(err)}`),
    );
    this.scheduleTick();
    this.deps.onChanged();
  }

  private scheduleDirPoll(): void {
    if (this.disposed) return;
    this.dirPollTimer = this.deps.clock.setTimeout(() => {
      this.dirPollTimer = undefined;
      void this.enqueue(() => this.startNow());
    }, CLAUDE_DIR_POLL_MS);
  }

  /** The next poll is timed from the end of this one, so a slow disk never piles ticks up. */
  private scheduleTick(): void {
    const engine = this.engine;
    if (this.disposed || !engine) return;
    this.tickTimer = this.deps.clock.setTimeout(() => {
      this.tickTimer = undefined;
      // Only the loop of the engine still running goes on (a restart starts its own).
      void this.tickNow().finally(() => {
        if (this.engine === engine && this.tickTimer === undefined) this.scheduleTick();
      });
    }, TICK_INTERVAL_MS);
  }

  /**
   * The timer's tick is skipped while one is in flight (a slow disk must not pile
   * ticks up); an explicit tick waits for it and then reads afresh.
   */
  private async tickNow(fresh = false): Promise<void> {
    if (this.inFlight) {
      if (!fresh) return;
      await this.inFlight;
    }
    const engine = this.engine;
    if (!engine) return;
    this.inFlight = engine
      .tick()
      .catch((err) => this.deps.log.warn(`tick failed: ${errorText(err)}`))
      .finally(() => {
        this.inFlight = undefined;
      });
    await this.inFlight;
    this.deps.onChanged();
  }

  private async stopNow(): Promise<void> {
    if (this.tickTimer !== undefined) this.deps.clock.clearTimeout(this.tickTimer);
    if (this.dirPollTimer !== undefined) this.deps.clock.clearTimeout(this.dirPollTimer);
    this.tickTimer = undefined;
    this.dirPollTimer = undefined;
    this.engineSubscription?.dispose();
    this.engineSubscription = undefined;
    const engine = this.engine;
    this.engine = undefined;
    if (engine) await engine.dispose();
    this.deps.onChanged();
  }

  /** Stops ticking and closes the engine (and its watchers); resolves when closed. */
  stop(): Promise<void> {
    this.disposed = true;
    return this.enqueue(() => this.stopNow());
  }

  dispose(): void {
    void this.stop();
  }
}
