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
import { DEFAULT_CHANNEL_MAX_AGE_MS } from '../../rules/channelConstants';
import { type SpoolFolding, type SpoolFoldResult, foldSpool } from '../../rules/spoolFold';
import { parseSpoolName } from '../../rules/spoolNames';
import { ChannelFiles } from './channelFiles';
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
 * first (so a hook event is known before its record), then transcripts.
 */
/** Spool files a drain's later folds read at once (its first keeps to the poll's budget, DEFAULT_SPOOL_FILES_PER_FOLD). */
const DRAIN_FILES_PER_FOLD = 10_000;

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
  /** Per session: true once its cwd is known to match, false when known not to. */
  private readonly visible = new Map<string, boolean>();
  /** Live events of sessions not yet known to match, shown if they turn out to. */
  private readonly undecided = new Map<string, EngineEvent[]>();
  /** Sessions whose cwd is being checked (a tick and a change notification may both ask). */
  private readonly deciding = new Set<string>();
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
  /** The spool is being drained now (folds while there is work), and whether a change came in meanwhile (one more fold then). */
  private draining: Promise<void> | undefined;
  private foldAgain = false;
  /** Sessions whose channel file refused the fold's append: left out of folds until the next poll tries one file of each. */
  private readonly appendRefused = new Set<string>();
  /** The next fold tries one file of each refused session (a poll asked). */
  private probeRefused = false;

  constructor(opts: EngineOptions) {
    this.opts = opts;
    this.correlator = new Correlator({ recentCalls: opts.recentCalls ?? 20, keepMeasured: opts.measured !== undefined });
    this.stopped = new Promise<void>((resolve) => (this.stop = resolve));
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
      isForeign: (sessionId: string) => this.visible.get(sessionId) === false,
      markForeign: (sessionId: string) => {
        if (this.visible.has(sessionId)) return;
        this.visible.set(sessionId, false);
        this.undecided.delete(sessionId);
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
    await Promise.race([this.foldPass(), this.stopped]);
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
        if (parseSpoolName(path.basename(changed)) !== undefined) void this.drainSpool(false);
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
    await Promise.race([this.drainSpool(true), this.stopped]);
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
   * Drains the mod's spool into the channel files (src/rules/spoolFold.ts): a
   * fold, the channel files it appended to read at once, and another fold
   * while the last one left files for its budget or a change came in. One
   * drain at a time: a call during one asks it for one more fold and returns.
   * Otherwise resolves once the first fold is done, so a poll reads the
   * channel after it; the rest goes on beside the poll's reads, and a stop
   * ends it between sessions, never waiting for it.
   * `retryRefused`: the sessions whose channel file refused an append are
   * tried again (the poll's once a poll; a change notification's never: the
   * files put back would notify again, a loop).
   */
  private drainSpool(retryRefused: boolean): Promise<void> {
    const ops = this.opts.spool;
    if (!ops || this.stopping) return Promise.resolve();
    if (retryRefused) this.probeRefused = true;
    if (this.draining) {
      this.foldAgain = true;
      return Promise.resolve();
    }
    let firstDone!: () => void;
    const first = new Promise<void>((resolve) => (firstDone = resolve));
    const drain = async () => {
      let first = true;
      for (;;) {
        this.foldAgain = false;
        // The first fold within a poll's budget; the drain's next ones take more at once (fewer listings of a large spool).
        const done = await this.foldPass(first ? undefined : DRAIN_FILES_PER_FOLD);
        first = false;
        firstDone();
        if (done === undefined || this.stopping) return;
        const channelDir = channelDirOf(this.opts.claudeDir);
        for (const id of done.folded.keys()) await this.channels.readPath(path.join(channelDir, `${id}${CHANNEL_FILE_SUFFIX}`));
        if (done.folded.size > 0) await this.settleVisibility();
        // Files left for the budget: on at once, as long as a fold gets somewhere (unfinished files wait for a change or a poll).
        const progress = done.folded.size > 0 || done.removed > 0;
        if (!((done.more && progress) || this.foldAgain) || this.stopping) return;
      }
    };
    this.draining = drain()
      .catch(() => undefined)
      .finally(() => {
        firstDone();
        this.draining = undefined;
      });
    return first;
  }

  /** One fold of the spool; the sessions whose channel file refused it are left out until the next poll. */
  private async foldPass(maxFiles?: number): Promise<SpoolFoldResult | undefined> {
    const o = this.opts;
    if (!o.spool) return undefined;
    const probe = this.probeRefused;
    this.probeRefused = false;
    const done = await foldSpool({
      files: this.files,
      clock: o.clock,
      spoolDir: spoolDirOf(o.claudeDir),
      channelDir: channelDirOf(o.claudeDir),
      ops: o.spool,
      maxAgeMs: o.channelMaxAgeMs ?? DEFAULT_CHANNEL_MAX_AGE_MS,
      ...(probe ? { probeSessions: new Set(this.appendRefused) } : { skipSessions: new Set(this.appendRefused) }),
      ...(maxFiles !== undefined ? { maxFiles } : {}),
      stopped: () => this.stopping,
    }).catch(() => undefined);
    for (const id of done?.folded.keys() ?? []) this.appendRefused.delete(id);
    for (const id of done?.refused ?? []) this.appendRefused.add(id);
    if (this.appendRefused.size > 10_000) this.appendRefused.clear(); // bounded: forgetting one costs a retry, not an event
    return done;
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

  /**
   * Decides which sessions the views see: all, or those whose cwd matches the
   * workspace. `only`: just that session (a file of it was indexed); undefined:
   * a session not known yet (an older agent transcript): every session.
   */
  private async settleVisibility(only?: string): Promise<void> {
    const now = this.opts.clock.now();
    if (only !== undefined) {
      if (this.correlator.has(only)) await this.settleSession(only, now);
      return;
    }
    for (const id of this.correlator.sessionIds()) if (!this.visible.has(id)) await this.settleSession(id, now);
    for (const id of this.undecided.keys()) if (!this.correlator.has(id)) this.undecided.delete(id);
    if (this.visible.size > 10_000) {
      for (const [id, shown] of this.visible) if (!shown && !this.correlator.has(id)) this.visible.delete(id);
    }
  }

  private async settleSession(id: string, now: number): Promise<void> {
    if (this.visible.has(id) || this.deciding.has(id)) return;
    let shown: boolean;
    if (this.opts.scope === 'all') shown = true;
    else {
      const cwd = this.correlator.cwdOf(id);
      if (cwd === undefined) return;
      this.deciding.add(id);
      try {
        shown = await this.matcher.matchesCwd(cwd);
      } finally {
        this.deciding.delete(id);
      }
    }
    if (this.visible.has(id)) return;
    // Shown once its history is indexed: until then, which of its calls are held is not known.
    if (shown && this.transcripts.historyPending(id)) return;
    this.visible.set(id, shown);
    const buffered = this.undecided.get(id) ?? [];
    this.undecided.delete(id);
    if (!shown) {
      await this.transcripts.unfollowSession(id);
      this.channels.unfollowSession(id);
      this.correlator.drop(id);
      return;
    }
    this.announce(id, now, buffered);
  }

  /**
   * A session becomes visible: its session event, its calls held since before
   * we looked (history), then the live events it had while undecided. A live
   * `held` whose record turned out to be in the history indexed since (the
   * hook's event landed after the history end, the record before it) is not
   * held: it is left out.
   */
  private announce(sessionId: string, now: number, buffered: EngineEvent[]): void {
    const ev = this.correlator.sessionEvent(sessionId, now);
    if (ev) this.emit(ev);
    const heldNow = this.correlator.heldEvents(sessionId);
    const stillHeld = new Set(heldNow.map((e) => (e.event === 'held' ? e.tool_use_id : '')));
    const writtenLive = new Set(buffered.map((e) => (e.event === 'written' ? e.tool_use_id : '')));
    const announced = new Set(buffered.map((e) => (e.event === 'held' ? e.tool_use_id : '')));
    for (const held of heldNow) if (held.event === 'held' && !announced.has(held.tool_use_id)) this.emit(held);
    for (const e of buffered) {
      if (e.event === 'session') continue;
      if (e.event === 'held' && !stillHeld.has(e.tool_use_id) && !writtenLive.has(e.tool_use_id)) continue;
      this.emit(e);
    }
  }

  private deliver(events: EngineEvent[], catchUp: boolean): void {
    if (catchUp) return;
    for (const e of events) {
      const shown = this.visible.get(e.session_id);
      if (shown === true) this.emit(e);
      else if (shown === undefined) {
        let list = this.undecided.get(e.session_id);
        if (!list) this.undecided.set(e.session_id, (list = []));
        // Bounded: a session that never shows its cwd must not grow this without end. One
        // whose history is being indexed keeps all: that ends, and what it buffers is its live events.
        if (list.length < 1000 || this.transcripts.historyPending(e.session_id)) list.push(e);
      }
    }
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
      this.visible.delete(id);
      this.undecided.delete(id);
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
      .filter((s) => this.visible.get(s.session_id) === true && isActiveSession(s.last_activity_at, s.stats.held_now, now, windowMs));
  }

  session(sessionId: string): SessionSnapshot | undefined {
    return this.visible.get(sessionId) === true ? this.correlator.snapshot(sessionId) : undefined;
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
      this.visible.clear();
      this.undecided.clear();
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
