import * as path from 'node:path';
import type { Clock } from '../../rules/clock';
import type { Correlator } from '../correlator';
import type { EngineEvent } from '../engineEvents';
import type { EngineNotice } from '../engineNotices';
import type { FileAccess } from '../fileAccess';
import type { ScanResult } from '../records';
import type { TailRead } from '../tailTypes';
import { type TranscriptRef, transcriptRefOf } from '../discovery';
import { createRecordScanner } from '../scanner';
import { FollowedFile, MAX_BYTES_PER_READ } from './followedFile';
import { TranscriptIndex } from './transcriptIndex';
import type { ProjectsConfinement } from './projectsConfinement';

/** What the file registries hand back to the engine. */
export interface EngineSink {
  emit(events: EngineEvent[], catchUp: boolean): void;
  /** A limit was hit: said once, in the log. */
  notice(n: EngineNotice): void;
  activeWindowMs: number;
  /** The session is known not to belong to the workspace: do not follow its files. */
  isForeign(sessionId: string): boolean;
  /** A hook event showed the session is not the workspace's (its transcript is in another project folder). */
  markForeign(sessionId: string): void;
}

interface TranscriptFile {
  ref: TranscriptRef;
  file: FollowedFile<ScanResult>;
  /** Known from the path, or (older agent-*.jsonl) from the first record carrying it. */
  sessionId?: string;
  /** Reads of an older agent transcript before any record named its session, kept in order. */
  pending: { read: TailRead<ScanResult>; catchUp: boolean }[];
  /** mtime when discovery chose the file: history's activity time. */
  mtimeMs?: number;
  /** Where the partial line last reported starts (generation and byte): each partial line is reported once. */
  partialReported?: string;
}

const MAX_PENDING_READS = 64;

/** The transcripts the engine follows: which to follow, reading them, handing reads to the correlator. */
export class TranscriptFiles {
  private readonly followed = new Map<string, TranscriptFile>();
  /**
   * Paths listed before, with their size when last looked at unfollowed. A file
   * first listed after start is new: its first read is live. A file seen before
   * and revived (a resumed session) has history up to that size; beyond it, live.
   */
  private readonly seen = new Map<string, number | undefined>();
  private readonly index: TranscriptIndex;
  /** Files indexHistory() is still to read the history of. */
  private readonly indexing = new Set<TranscriptFile>();
  /** Followed files by the session they are known to belong to: asked per session, while thousands are followed. */
  private readonly bySession = new Map<string, Set<TranscriptFile>>();

  constructor(
    private readonly files: FileAccess,
    private readonly clock: Clock,
    private readonly claudeDir: string,
    private readonly correlator: Correlator,
    private readonly accept: (projectDirName: string) => boolean,
    private readonly sink: EngineSink,
    /** Only files whose real path is inside projects/ are followed (a symlinked folder may lead anywhere). */
    private readonly confinement: ProjectsConfinement,
    /** Bytes per tail read (tests make it small so history takes many steps). */
    private readonly maxBytesPerRead = MAX_BYTES_PER_READ,
  ) {
    this.index = new TranscriptIndex(files, claudeDir, accept);
  }

  /** Lists transcripts and follows the active ones (and the subagents of followed sessions). */
  async discover(force: boolean, atStart: boolean): Promise<void> {
    const now = this.clock.now();
    const { refs, newRefs } = await this.index.scan(force);
    for (const ref of force || atStart ? refs : newRefs) {
      if (this.followed.has(ref.path)) continue;
      if (ref.sessionId !== undefined && this.sink.isForeign(ref.sessionId)) continue;
      const parentFollowed = ref.kind === 'subagent' && ref.sessionId !== undefined && this.correlator.has(ref.sessionId);
      const st = await this.files.stat(ref.path).catch(() => undefined);
      if (!st?.isFile || (!parentFollowed && now - st.mtimeMs > this.sink.activeWindowMs)) {
        this.seen.set(ref.path, st?.size);
        continue;
      }
      if ((await this.confinement.confine(ref.path)) === undefined) {
        this.seen.set(ref.path, st.size);
        continue;
      }
      // A change notification may have followed it while we were looking.
      if (this.followed.has(ref.path)) continue;
      // At start, its history ends where the file ends now: whatever is appended after is live, however long indexing takes.
      this.follow(ref, atStart ? st.size : undefined).mtimeMs = st.mtimeMs;
    }
    if (this.seen.size > 100_000) this.seen.clear();
    // A followed session's subagents start while it runs: look in its subagents/ folder when that changed.
    for (const t of [...this.followed.values()]) {
      if (t.ref.kind !== 'session' || t.sessionId === undefined) continue;
      const subs = await this.index.subagentsIfChanged(t.ref.projectDir, t.sessionId);
      for (const ref of subs ?? []) {
        if (this.followed.has(ref.path) || (await this.confinement.confine(ref.path)) === undefined) continue;
        const size = atStart ? ((await this.files.stat(ref.path).catch(() => undefined))?.size ?? 0) : undefined;
        if (!this.followed.has(ref.path)) this.follow(ref, size);
      }
    }
  }

  /**
   * Follows a transcript. `historyEnd`: its size when discovery looked at
   * start; otherwise its size when last seen unfollowed (a revived session),
   * or 0 for a file new since start (all of it is live).
   */
  private follow(ref: TranscriptRef, historyEnd: number | undefined): TranscriptFile {
    const end = historyEnd ?? this.seen.get(ref.path) ?? 0;
    this.seen.delete(ref.path);
    const t: TranscriptFile = {
      ref,
      file: new FollowedFile(ref.path, this.files, this.clock, createRecordScanner(), end, this.maxBytesPerRead),
      ...(ref.sessionId !== undefined ? { sessionId: ref.sessionId } : {}),
      pending: [],
    };
    this.followed.set(ref.path, t);
    if (t.sessionId !== undefined) this.noteSession(t, t.sessionId);
    return t;
  }

  private noteSession(t: TranscriptFile, sessionId: string): void {
    let files = this.bySession.get(sessionId);
    if (!files) this.bySession.set(sessionId, (files = new Set()));
    files.add(t);
  }

  /** Files followed, and the bytes of history they held when followed and have not indexed yet. */
  historyLeft(): { files: number; bytes: number } {
    let bytes = 0;
    for (const t of this.followed.values()) bytes += t.file.historyLeft;
    return { files: this.followed.size, bytes };
  }

  /** Some file of the session still has history to index: what it holds (and holds back) is not known yet. */
  historyPending(sessionId: string): boolean {
    for (const t of this.bySession.get(sessionId) ?? []) if (t.file.inHistory) return true;
    return false;
  }

  /**
   * Reads the history of every followed file up to where it ended when
   * followed, smallest first (a small session is shown at once, not after a
   * 1 GB neighbour), calling `afterFile` with its session (when known) after each. Meanwhile readAll()
   * leaves the files still waiting here alone, so a tick reads the others
   * instead of queueing behind a big file's history.
   */
  async indexHistory(afterFile: (sessionId: string | undefined) => Promise<void>, stopped: () => boolean): Promise<void> {
    const waiting = [...this.followed.values()].filter((t) => t.file.inHistory).sort((a, b) => a.file.historyLeft - b.file.historyLeft);
    for (const t of waiting) this.indexing.add(t);
    try {
      for (const t of waiting) {
        await this.readHistory(t, stopped);
        this.indexing.delete(t);
        if (stopped()) return;
        await afterFile(t.sessionId);
      }
    } finally {
      this.indexing.clear();
    }
  }

  /**
   * A hook event named this transcript: follow it if it is ours to follow.
   * False when it is not (not a transcript's place, or a project folder outside
   * the workspace): the event's session is not one we show.
   */
  followFromHook(transcriptPath: string): boolean {
    // Every channel line names its transcript: one already followed by this very name is a lookup, not path arithmetic.
    const known = this.followed.get(transcriptPath);
    if (known) return this.accept(path.basename(known.ref.projectDir));
    const ref = transcriptRefOf(this.claudeDir, transcriptPath);
    if (!ref || !this.accept(path.basename(ref.projectDir))) return false;
    if (this.followed.has(ref.path)) return true;
    if (ref.sessionId !== undefined && this.sink.isForeign(ref.sessionId)) return false;
    this.follow(ref, undefined);
    return true;
  }

  /**
   * Reads every followed file. One indexHistory() is still to read is read
   * only when its size is no longer where its history ends (a record was
   * appended, or it was cut): then its history and what came after, at
   * once, so a live line is not left waiting behind thousands of other
   * files' history. Stops between files once `stopped`.
   */
  async readAll(stopped: () => boolean): Promise<void> {
    for (const t of [...this.followed.values()]) {
      if (stopped()) return;
      if (this.indexing.has(t)) {
        const st = await this.files.stat(t.ref.path).catch(() => undefined);
        if (st?.size === t.file.historyEnd) continue;
      }
      await this.read(t);
    }
  }

  /** A change notification: read the file at once if it is (or should be) followed. */
  async readPath(changed: string): Promise<void> {
    let t = this.followed.get(path.resolve(changed));
    if (!t) {
      // A watcher may report a file by its real path or through a symlinked folder: named as discovery names it, if inside.
      const named = await this.confinement.confine(path.resolve(changed));
      if (named === undefined) return;
      t = this.followed.get(named);
      if (t) return this.read(t);
      const ref = transcriptRefOf(this.claudeDir, named);
      if (!ref || !this.accept(path.basename(ref.projectDir))) return;
      if (ref.sessionId !== undefined && this.sink.isForeign(ref.sessionId)) return;
      // Followed by a tick while we looked: read that one.
      t = this.followed.get(ref.path) ?? this.follow(ref, undefined);
    }
    await this.read(t);
  }

  /** Whatever history the file has left, then what came after it, as live. */
  private async read(t: TranscriptFile): Promise<void> {
    await this.readHistory(t, () => false);
    await this.readOnce(t);
  }

  /** A read() stops where history ends, or after 8 GB of it; no progress means the file is gone or unreadable. */
  private async readHistory(t: TranscriptFile, stopped: () => boolean): Promise<void> {
    for (let before = -1; t.file.inHistory && !stopped() && t.file.tail.offset !== before; ) {
      before = t.file.tail.offset;
      await this.readOnce(t);
    }
  }

  private async readOnce(t: TranscriptFile): Promise<void> {
    await t.file.read((read, catchUp) => this.ingest(t, read, catchUp)).catch(() => undefined);
    // A partial line is past every complete one: history only while the history is not read to its end.
    this.notePartial(t, t.file.inHistory);
  }

  /**
   * Half a record on disk (bytes after the last newline) is what a hook polling
   * the file would see: reported once per partial line, when the read that
   * first saw it ends.
   */
  private notePartial(t: TranscriptFile, catchUp: boolean): void {
    const tail = t.file.tail;
    const bytes = tail.partialBytes;
    if (bytes === 0 || t.sessionId === undefined || t.file.closed) return;
    const key = `${tail.generation}\u0000${tail.offset - bytes}`;
    if (key === t.partialReported) return;
    t.partialReported = key;
    if (this.sink.isForeign(t.sessionId)) return;
    this.sink.emit(
      [{ event: 'partial', session_id: t.sessionId, transcript_path: t.ref.path, at: this.clock.now(), generation: tail.generation, line: tail.lineCount + 1, bytes }],
      catchUp,
    );
  }

  private ingest(t: TranscriptFile, read: TailRead<ScanResult>, catchUp: boolean): void {
    if (t.sessionId === undefined) {
      const named = read.lines.find((l) => l.scan.kind === 'record' && l.scan.sessionId);
      if (!named || named.scan.kind !== 'record' || !named.scan.sessionId) {
        t.pending.push({ read, catchUp });
        if (t.pending.length > MAX_PENDING_READS) t.pending.shift();
        return;
      }
      t.sessionId = named.scan.sessionId;
      if (this.followed.get(t.ref.path) === t) this.noteSession(t, t.sessionId);
      const earlier = t.pending.splice(0);
      for (const p of earlier) this.ingestPart(t, t.sessionId, p.read, p.catchUp);
    }
    this.ingestPart(t, t.sessionId, read, catchUp);
  }

  private ingestPart(t: TranscriptFile, sessionId: string, read: TailRead<ScanResult>, catchUp: boolean): void {
    if (this.sink.isForeign(sessionId)) return;
    const events = this.correlator.ingestTranscript({
      sessionId,
      transcriptPath: t.ref.path,
      isMain: t.ref.kind === 'session',
      ...(t.ref.agentId !== undefined ? { agentId: t.ref.agentId } : {}),
      read,
      historical: catchUp,
      ...(catchUp && t.mtimeMs !== undefined ? { activityAt: t.mtimeMs } : {}),
    });
    this.sink.emit(events, catchUp);
  }

  async unfollowSession(sessionId: string): Promise<void> {
    const files = this.bySession.get(sessionId);
    this.bySession.delete(sessionId);
    for (const t of files ?? []) {
      const p = t.ref.path;
      if (this.followed.get(p) !== t) continue;
      this.followed.delete(p);
      // If it is written again (a resumed session), what we read was history and only what follows is live.
      this.seen.set(p, t.file.seenUpTo);
      this.index.forgetSession(t.ref.projectDir, sessionId);
      await t.file.close().catch(() => undefined);
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.followed.values()];
    this.followed.clear();
    this.bySession.clear();
    for (const t of all) await t.file.close().catch(() => undefined);
  }
}
