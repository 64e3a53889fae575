import * as path from 'node:path';
import type { Clock } from '../clock';
import type { Correlator } from '../correlator';
import type { EngineEvent } from '../engineEvents';
import type { FileAccess } from '../fileAccess';
import type { ScanResult } from '../records';
import type { TailRead } from '../tailTypes';
import { type TranscriptRef, transcriptRefOf } from '../discovery';
import { createRecordScanner } from '../scanner';
import { FollowedFile } from './followedFile';
import { TranscriptIndex } from './transcriptIndex';

/** What the file registries hand back to the engine. */
export interface EngineSink {
  emit(events: EngineEvent[], catchUp: boolean): void;
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
  pending: TailRead<ScanResult>[];
  /** mtime when discovery chose the file: history's activity time. */
  mtimeMs?: number;
  /** Lines ending at or below this byte were on disk before we followed the file: history, not live. */
  historyBytes: number;
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

  constructor(
    private readonly files: FileAccess,
    private readonly clock: Clock,
    private readonly claudeDir: string,
    private readonly correlator: Correlator,
    private readonly accept: (projectDirName: string) => boolean,
    private readonly sink: EngineSink,
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
      // A change notification may have followed it while we were looking.
      if (this.followed.has(ref.path)) continue;
      this.follow(ref, atStart).mtimeMs = st.mtimeMs;
    }
    if (this.seen.size > 100_000) this.seen.clear();
    // A followed session's subagents start while it runs: look in its subagents/ folder when that changed.
    for (const t of [...this.followed.values()]) {
      if (t.ref.kind !== 'session' || t.sessionId === undefined) continue;
      const subs = await this.index.subagentsIfChanged(t.ref.projectDir, t.sessionId);
      for (const ref of subs ?? []) if (!this.followed.has(ref.path)) this.follow(ref, atStart);
    }
  }

  private follow(ref: TranscriptRef, atStart: boolean): TranscriptFile {
    const historyBytes = atStart ? Infinity : this.seen.has(ref.path) ? (this.seen.get(ref.path) ?? Infinity) : 0;
    this.seen.delete(ref.path);
    const t: TranscriptFile = {
      ref,
      file: new FollowedFile(ref.path, this.files, this.clock, createRecordScanner(), historyBytes > 0),
      ...(ref.sessionId !== undefined ? { sessionId: ref.sessionId } : {}),
      pending: [],
      historyBytes,
    };
    this.followed.set(ref.path, t);
    return t;
  }

  /**
   * A hook event named this transcript: follow it if it is ours to follow.
   * False when it is not (not a transcript's place, or a project folder outside
   * the workspace): the event's session is not one we show.
   */
  followFromHook(transcriptPath: string): boolean {
    const ref = transcriptRefOf(this.claudeDir, transcriptPath);
    if (!ref || !this.accept(path.basename(ref.projectDir))) return false;
    if (this.followed.has(ref.path)) return true;
    if (ref.sessionId !== undefined && this.sink.isForeign(ref.sessionId)) return false;
    this.follow(ref, false);
    return true;
  }

  async readAll(): Promise<void> {
    for (const t of [...this.followed.values()]) await this.read(t);
  }

  /** A change notification: read the file at once if it is (or should be) followed. */
  async readPath(changed: string): Promise<void> {
    let t = this.followed.get(path.resolve(changed));
    if (!t) {
      const ref = transcriptRefOf(this.claudeDir, changed);
      if (!ref || !this.accept(path.basename(ref.projectDir))) return;
      if (ref.sessionId !== undefined && this.sink.isForeign(ref.sessionId)) return;
      t = this.follow(ref, false);
    }
    await this.read(t);
  }

  private async read(t: TranscriptFile): Promise<void> {
    const catchUp = t.file.catchUp;
    await t.file.read((read, wasCatchUp) => this.ingest(t, read, wasCatchUp)).catch(() => undefined);
    this.notePartial(t, catchUp);
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
        t.pending.push(read);
        if (t.pending.length > MAX_PENDING_READS) t.pending.shift();
        return;
      }
      t.sessionId = named.scan.sessionId;
      const earlier = t.pending.splice(0);
      for (const r of earlier) this.ingestFor(t, t.sessionId, r, catchUp);
    }
    this.ingestFor(t, t.sessionId, read, catchUp);
  }

  /** A catch-up read of a revived file: history up to what it held when last seen, live beyond. */
  private ingestFor(t: TranscriptFile, sessionId: string, read: TailRead<ScanResult>, catchUp: boolean): void {
    if (!catchUp || t.historyBytes === Infinity || read.lines.every((l) => l.byteEnd <= t.historyBytes)) {
      this.ingestPart(t, sessionId, read, catchUp);
      return;
    }
    const [history, live] = splitRead(read, t.historyBytes);
    if (history) this.ingestPart(t, sessionId, history, true);
    this.ingestPart(t, sessionId, live, false);
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
    for (const [p, t] of [...this.followed]) {
      if (t.sessionId !== sessionId) continue;
      this.followed.delete(p);
      // If it is written again (a resumed session), what we read was history and only what follows is live.
      this.seen.set(p, t.file.tail.offset);
      this.index.forgetSession(t.ref.projectDir, sessionId);
      await t.file.close().catch(() => undefined);
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.followed.values()];
    this.followed.clear();
    for (const t of all) await t.file.close().catch(() => undefined);
  }
}

/** Splits a read at a byte offset: lines ending at or below it, then the rest (with the read's changes first). */
function splitRead(read: TailRead<ScanResult>, atByte: number): [TailRead<ScanResult> | undefined, TailRead<ScanResult>] {
  const before = read.lines.filter((l) => l.byteEnd <= atByte);
  const after = read.lines.filter((l) => l.byteEnd > atByte);
  const part = (lines: TailRead<ScanResult>['lines'], changes: TailRead<ScanResult>['changes']): TailRead<ScanResult> => {
    const out: TailRead<ScanResult> = { lines, changes };
    const first = lines[0];
    const last = lines[lines.length - 1];
    if (read.batch && first && last) {
      out.batch = { ...read.batch, firstLine: first.line, lastLine: last.line, byteStart: first.byteStart, byteEnd: last.byteEnd };
    }
    return out;
  };
  if (before.length === 0) return [undefined, read];
  return [part(before, read.changes), part(after, [])];
}
