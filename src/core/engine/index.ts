import * as path from 'node:path';
import type { ChangeSource, Disposable } from '../changeSource';
import type { Clock } from '../../rules/clock';
import type { FileAccess } from '../fileAccess';
import type { EngineEvent } from '../engineEvents';
import type { EngineNotice } from '../engineNotices';
import { BoundedFileAccess, DEFAULT_MAX_OPEN_FILES } from '../boundedFileAccess';
import type { SessionSnapshot } from '../snapshot';
import { Correlator } from '../correlator';
import { WorkspaceMatcher, isActiveSession, projectsDirOf } from '../discovery';
import { CHANNEL_FILE_SUFFIX } from '../../rules/channelConstants';
import { channelDirOf, spoolDirOf } from '../../rules/channelPaths';
import type { SpoolFolding } from '../../rules/spoolFold';
import { parseSpoolName } from '../../rules/spoolNames';
import { ChannelFiles } from './channelFiles';
import { SessionGate } from './sessionGate';
import { SpoolDrain } from './spoolDrain';
import { TranscriptFiles } from './transcriptFiles';
import { ProjectsConfinement } from './projectsConfinement';

export interface EngineOptions {
  claudeDir: string;
  workspaceFolders: string[];
  /** 'all': every session under the Claude dir. */
  scope: 'workspace' | 'all';
  files: FileAccess;
  clock: Clock;
  /** Live notifications; without it only tick() reads. */
  changes?: ChangeSource;
  /** Recent written calls kept per session (default 20). */
  recentCalls?: number;
  /** Sessions idle this long are dropped from memory (default 2 h). */
  idleEvictMs?: number;
  /** A session is active when modified within this window or holding calls (default 30 min). */
  activeWindowMs?: number;
  /** Every this often (clock time) tick() lists every folder again, whatever their mtimes say (default 10 s). */
  rescanMs?: number;
  /** Channel files untouched this long are pruned (default 7 days; 0 = never). Needs `removeFile`. */
  channelMaxAgeMs?: number;
  /** Deletes a file; the engine uses it only to prune old channel files. */
  removeFile?: (path: string) => Promise<void>;
  /**
   * The writes that fold the mod's spool into the channel (claim, append,
   * remove: src/rules/nodeSpoolFolding.ts). Without it the spool is left alone
   * (whoever folds it, another window or `watch`, appends its events to the
   * channel, which this engine then reads).
   */
  spool?: SpoolFolding;
  /** Bytes per transcript read (default 8 MiB): history is indexed in steps of this size. */
  maxBytesPerRead?: number;
  /** Files kept open at once (default 256): a followed file idle past it is closed and opened again when read. */
  maxOpenFiles?: number;
  /**
   * Keeps what this engine measured in the session's channel file: each call's first live read of
   * its record, as a `measured` event (src/core/correlator/measured.ts), appended as the hook appends
   * (src/rules/channelWriter.ts). A later engine (a reload, a new window, `watch` again) reads them
   * back with the channel's history and gives those calls the lag and shape measured, where it could
   * measure none. Without it nothing is written and nothing measured outlives the engine.
   */
  measured?: MeasuredKeeping;
}

/** The write that keeps an engine's measurements (src/rules/channelWriter.ts `appendChannelLines` on the real file system). */
export interface MeasuredKeeping {
  /** Appends the events, one line each, to `<channelDir>/<session_id>.jsonl` with one write; false when refused (nothing written). */
  append(channelDir: string, sessionId: string, events: readonly object[]): Promise<boolean>;
}

/**
 * What start() resolves with: the moment every followed file's history end
 * was fixed (its size then). Lines past it are live, whenever they are read;
 * indexing the history goes on after this (see indexed()).
 */
export interface EngineReady {
  /** Clock time when the history ends were fixed. */
  at: number;
  /** Transcript files followed. */
  files: number;
  /** Bytes of transcript history still to index. */
  historyBytes: number;
}

export const DEFAULT_IDLE_EVICT_MS = 2 * 60 * 60 * 1000;
export const DEFAULT_ACTIVE_WINDOW_MS = 30 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * Composes discovery, tails, the channel and the correlator. It owns no timers:
 * whoever builds it calls tick() on an interval (the stat poll, the safety net)
 * and may pass a ChangeSource for low latency. Each tick reads channel files
 * first (so a hook event is known before its record), then transcripts. The
 * mod's spool is drained into the channel by ./spoolDrain.ts; which sessions the
 * views see is ./sessionGate.ts's to say.
 */
export class TranscriptLagEngine {
  private opts: EngineOptions;
  private correlator: Correlator;
  private readonly listeners = new Set<(e: EngineEvent) => void>();
  private readonly noticeListeners = new Set<(n: EngineNotice) => void>();
  /** When each kind of file-limit notice was last given: one line per minute at most, not one per file. */
  private readonly lastFileLimitNotice = new Map<boolean, number>();
  private matcher!: WorkspaceMatcher;
  /** The bounded file access every reader here shares. */
  private files!: FileAccess;
  private transcripts!: TranscriptFiles;
  private channels!: ChannelFiles;
  private readonly gate: SessionGate;
  private readonly spoolDrain: SpoolDrain;
  private watcher: Disposable | undefined;
  private started = false;
  private disposed = false;
  private lastRescanAt = -Infinity;
  private lastPruneAt = -Infinity;
  private tickQueue: Promise<void> = Promise.resolve();
  private ready: EngineReady | undefined;
  /** Indexing the history found at start (beside the serial queue: ticks go on meanwhile). */
  private indexing: Promise<void> = Promise.resolve();
  /** dispose() was called: indexing stops between reads instead of finishing first. */
  private stopping = false;
  /** Resolves when dispose() is called: what waits on a fold waits on this too, so a stop never waits on one. */
  private readonly stopped: Promise<void>;
  private stop!: () => void;

  constructor(opts: EngineOptions) {
    this.opts = opts;
    this.correlator = new Correlator({ recentCalls: opts.recentCalls ?? 20, keepMeasured: opts.measured !== undefined });
    this.stopped = new Promise<void>((resolve) => (this.stop = resolve));
    this.gate = new SessionGate({
      scope: () => this.opts.scope,
      correlator: () => this.correlator,
      matcher: () => this.matcher,
      historyPending: (id) => this.transcripts.historyPending(id),
      drop: async (id) => {
        await this.transcripts.unfollowSession(id);
        this.channels.unfollowSession(id);
        this.correlator.drop(id);
      },
      clockNow: () => this.opts.clock.now(),
      emit: (e) => this.emit(e),
    });
    this.spoolDrain = new SpoolDrain({
      files: () => this.files,
      clock: () => this.opts.clock,
      claudeDir: () => this.opts.claudeDir,
      spool: () => this.opts.spool,
      channelMaxAgeMs: () => this.opts.channelMaxAgeMs,
      stopping: () => this.stopping,
      folded: async (sessionIds) => {
        const channelDir = channelDirOf(this.opts.claudeDir);
        let any = false;
        for (const id of sessionIds) {
          any = true;
          await this.channels.readPath(path.join(channelDir, `${id}${CHANNEL_FILE_SUFFIX}`));
        }
        if (any) await this.settleVisibility();
      },
    });
    this.build();
  }

  private build(): void {
    const o = this.opts;
    const files = new BoundedFileAccess(o.files, o.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES, (n) => {
      const at = o.clock.now();
      const last = this.lastFileLimitNotice.get(n.recovered);
      if (last !== undefined && at - last < 60_000) return;
      this.lastFileLimitNotice.set(n.recovered, at);
      this.notice({ kind: 'file_limit', at, code: n.code, path: n.path, open_handles: n.openHandles, recovered: n.recovered, max_open: files.limit });
    });
    this.files = files;
    this.matcher = new WorkspaceMatcher(files, o.workspaceFolders.map((f) => path.resolve(f)));
    const accept = o.scope === 'all' ? () => true : (name: string) => this.matcher.mayHold(name);
    const sink = {
      emit: (events: EngineEvent[], catchUp: boolean) => this.deliver(events, catchUp),
      notice: (n: EngineNotice) => this.notice(n),
      activeWindowMs: o.activeWindowMs ?? DEFAULT_ACTIVE_WINDOW_MS,
      isForeign: (sessionId: string) => this.gate.shown(sessionId) === false,
      markForeign: (sessionId: string) => {
        if (!this.gate.markForeign(sessionId)) return;
        this.channels.unfollowSession(sessionId);
        void this.transcripts.unfollowSession(sessionId);
        this.correlator.drop(sessionId);
      },
    };
    const confinement = new ProjectsConfinement(files, o.claudeDir);
    this.transcripts = new TranscriptFiles(files, o.clock, o.claudeDir, this.correlator, accept, sink, confinement, o.maxBytesPerRead);
    this.channels = new ChannelFiles(files, o.clock, o.claudeDir, this.correlator, sink, (p) => this.transcripts.followFromHook(p), confinement);
  }

  /**
   * Discovery: fixes where each followed file's history ends, reads the hook
   * channel, subscribes to changes and resolves: from then on every line
   * appended is live. Indexing the transcripts' history goes on after (see
   * indexed()); a session is shown once its own history is indexed.
   */
  async start(): Promise<EngineReady> {
    await this.serialized(() => this.catchUpIfNeeded());
    if (!this.ready) throw new Error('engine disposed before it started');
    return this.ready;
  }

  /** Resolves once the history found at start (or at the last reconfigure) is indexed. */
  indexed(): Promise<void> {
    return this.indexing;
  }

  /**
   * The first look: lists everything and fixes each file's history end, reads
   * the channel's history (so hook events are known before the records that
   * answer them), and queues indexing the transcripts' history: indexed
   * without replaying it as live events. Runs inside the serial queue.
   */
  private async catchUpIfNeeded(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.matcher.refresh();
    const now = this.opts.clock.now();
    this.lastRescanAt = now;
    await this.transcripts.discover(true, true);
    // One fold, before the channel's history end is fixed: what the mod spooled while nobody watched is history. A longer backlog drains from the first poll on.
    await Promise.race([this.spoolDrain.fold(), this.stopped]);
    await this.channels.discover(true, true);
    await this.channels.readAll();
    this.subscribe();
    const left = this.transcripts.historyLeft();
    this.ready = { at: this.opts.clock.now(), files: left.files, historyBytes: left.bytes };
    this.indexing = this.indexHistory();
    // Whoever awaits indexed() sees a failure; nobody awaiting it is no unhandled rejection.
    this.indexing.catch(() => undefined);
  }

  /**
   * Indexes every followed file's history, smallest first, showing each
   * session once its own history is in; then polls as a tick does, so what
   * was appended meanwhile (new channel files too) is read at once, channel
   * first, whether or not a change notification said so. Runs beside the
   * serial queue: ticks and change notifications go on reading the other
   * files meanwhile. dispose() and a rebuilding reconfigure() stop it.
   */
  private async indexHistory(): Promise<void> {
    // Yield first: start() resolves (ready) before any history is read.
    await Promise.resolve();
    const files = this.transcripts;
    const stopped = () => this.stopping || this.transcripts !== files;
    // After each file, only its own session: 20,000 files each looking at every session would be quadratic.
    await files.indexHistory((sessionId) => this.settleVisibility(sessionId), stopped);
    if (stopped()) return;
    await this.serialized(() => this.poll());
  }

  private subscribe(): void {
    if (!this.opts.changes) return;
    // The channel folder holds the spool folder: the mod's spooled events are noticed as they are written.
    this.watcher = this.opts.changes.watch([projectsDirOf(this.opts.claudeDir), channelDirOf(this.opts.claudeDir)], (p) => {
      void this.onChange(p);
    });
  }

  private async onChange(changed: string): Promise<void> {
    if (this.disposed) return;
    try {
      if (path.dirname(path.resolve(changed)) === spoolDirOf(this.opts.claudeDir)) {
        // Only a spool file's own name: the claims folding makes (renames) would fold again for nothing.
        // Not awaited: the drain reads what it folds, and nothing here waits on a fold.
        if (parseSpoolName(path.basename(changed)) !== undefined) void this.spoolDrain.drain(false);
        return;
      } else if (this.channels.owns(changed)) await this.channels.readPath(changed);
      else await this.transcripts.readPath(changed);
      await this.settleVisibility();
      await this.keepMeasured();
    } catch {
      // Best effort: the next tick reads whatever this missed.
    }
  }

  /** One poll of everything: new files, channel lines, transcript lines, eviction. */
  tick(): Promise<void> {
    return this.serialized(async () => {
      if (!this.started) {
        // tick() before start(): the first tick is the catch-up.
        await this.catchUpIfNeeded();
        return;
      }
      await this.poll();
    });
  }

  private async poll(): Promise<void> {
    const now = this.opts.clock.now();
    const force = now - this.lastRescanAt >= (this.opts.rescanMs ?? 10_000);
    if (force) {
      this.lastRescanAt = now;
      await this.matcher.refresh();
    }
    await Promise.race([this.spoolDrain.drain(true), this.stopped]);
    if (this.stopping) return;
    await this.channels.discover(false, force);
    await this.transcripts.discover(force, false);
    await this.channels.readAll();
    await this.transcripts.readAll(() => this.stopping);
    await this.settleVisibility();
    await this.keepMeasured();
    this.evict(now);
    await this.pruneChannels(now);
  }

  /**
   * Appends this engine's live reads of records (taken from the correlator, so each once) to their
   * sessions' channel files, one write per session. Best effort: a file refused (not ours) or a failed
   * write loses only what a later engine could have read back; this one already shows it.
   */
  private async keepMeasured(): Promise<void> {
    const taken = this.correlator.takeMeasured();
    const keeping = this.opts.measured;
    if (!keeping || taken.length === 0) return;
    const bySession = new Map<string, object[]>();
    for (const ev of taken) {
      let list = bySession.get(ev.session_id);
      if (!list) bySession.set(ev.session_id, (list = []));
      list.push(ev);
    }
    const dir = channelDirOf(this.opts.claudeDir);
    for (const [sessionId, events] of bySession) await keeping.append(dir, sessionId, events).catch(() => false);
  }

  private serialized(fn: () => Promise<void>): Promise<void> {
    // After dispose() nothing runs: a late timer tick must not follow files again.
    const next = this.tickQueue.then(() => (this.disposed ? undefined : fn()));
    this.tickQueue = next.catch(() => undefined);
    return next;
  }

  /** Which sessions the views see (./sessionGate.ts): `only`, that session alone; undefined, every session not decided yet. */
  private settleVisibility(only?: string): Promise<void> {
    return this.gate.settle(only);
  }

  private deliver(events: EngineEvent[], catchUp: boolean): void {
    if (catchUp) return;
    this.gate.deliver(events);
  }

  private emit(e: EngineEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        // A failing view must not stop the engine or the other views.
      }
    }
  }

  private evict(now: number): void {
    const idle = this.opts.idleEvictMs ?? DEFAULT_IDLE_EVICT_MS;
    for (const id of this.correlator.evictIdle(now, idle)) {
      void this.transcripts.unfollowSession(id);
      this.channels.unfollowSession(id);
      this.gate.forget(id);
    }
  }

  private async pruneChannels(now: number): Promise<void> {
    if (!this.opts.removeFile || now - this.lastPruneAt < PRUNE_EVERY_MS) return;
    this.lastPruneAt = now;
    await this.channels.prune(now, this.opts.channelMaxAgeMs, this.opts.removeFile);
  }

  private notice(n: EngineNotice): void {
    for (const l of [...this.noticeListeners]) {
      try {
        l(n);
      } catch {
        // A failing log must not stop the engine.
      }
    }
  }

  /** Limits the engine hit (open files, a hook flood): for a log, never silent. */
  onNotice(listener: (n: EngineNotice) => void): Disposable {
    this.noticeListeners.add(listener);
    return { dispose: () => void this.noticeListeners.delete(listener) };
  }

  onEvent(listener: (e: EngineEvent) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  /** Active visible sessions, most recent activity first. */
  sessions(): SessionSnapshot[] {
    const now = this.opts.clock.now();
    const windowMs = this.opts.activeWindowMs ?? DEFAULT_ACTIVE_WINDOW_MS;
    return this.correlator
      .snapshots()
      .filter((s) => this.gate.shown(s.session_id) === true && isActiveSession(s.last_activity_at, s.stats.held_now, now, windowMs));
  }

  session(sessionId: string): SessionSnapshot | undefined {
    return this.gate.shown(sessionId) === true ? this.correlator.snapshot(sessionId) : undefined;
  }

  async reconfigure(
    opts: Partial<Pick<EngineOptions, 'claudeDir' | 'workspaceFolders' | 'scope' | 'recentCalls' | 'channelMaxAgeMs'>>,
  ): Promise<void> {
    const before = this.opts;
    this.opts = { ...this.opts, ...opts };
    if (opts.recentCalls !== undefined) this.correlator.setRecentCalls(opts.recentCalls);
    // A shorter retention applies at the next tick, not an hour later.
    if (opts.channelMaxAgeMs !== before.channelMaxAgeMs) this.lastPruneAt = -Infinity;
    const rebuild =
      before.claudeDir !== this.opts.claudeDir ||
      before.scope !== this.opts.scope ||
      before.workspaceFolders.join('\0') !== this.opts.workspaceFolders.join('\0');
    if (!rebuild) return;
    await this.serialized(async () => {
      const wasStarted = this.started;
      await this.closeAll();
      this.correlator = new Correlator({ recentCalls: this.opts.recentCalls ?? 20, keepMeasured: this.opts.measured !== undefined });
      this.gate.clear();
      this.build();
      this.started = false;
      this.ready = undefined;
      this.lastRescanAt = -Infinity;
      if (wasStarted) await this.catchUpIfNeeded();
    });
  }

  private async closeAll(): Promise<void> {
    await this.watcher?.dispose();
    this.watcher = undefined;
    await this.transcripts.closeAll();
    await this.channels.closeAll();
  }

  async dispose(): Promise<void> {
    this.listeners.clear();
    this.noticeListeners.clear();
    this.stopping = true;
    this.stop();
    await this.serialized(async () => {
      this.disposed = true;
      await this.closeAll();
    });
  }
}
