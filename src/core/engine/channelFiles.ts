import * as path from 'node:path';
import type { Clock } from '../../rules/clock';
import type { Correlator } from '../correlator';
import type { EngineEvent } from '../engineEvents';
import type { FileAccess } from '../fileAccess';
import type { TailRead } from '../tailTypes';
import { channelDirOf, sessionIdOfChannelFile } from '../../rules/channelPaths';
import { chooseChannelFilesToPrune } from '../channel/prune';
import { type ChannelLine, createChannelScanner } from '../channel/reader';
import { FollowedFile } from './followedFile';
import type { ProjectsConfinement } from './projectsConfinement';
import type { EngineSink } from './transcriptFiles';

/**
 * Bytes of a channel file one read takes (a few hundred events): its history
 * is handed over in such steps, so what a step parsed is garbage before the
 * next, not a whole file's events held while each is ingested (kept that long,
 * they were promoted to V8's old space and piled up there: issue 30).
 */
const CHANNEL_BYTES_PER_READ = 64 * 1024;

interface ChannelFile {
  sessionId: string;
  file: FollowedFile<ChannelLine>;
}

/**
 * The hook channel: one `<session_id>.jsonl` per session under
 * `<claudeDir>/transcript-lag/`. A line counts only if it names the session
 * of its file and a transcript inside `<claudeDir>/projects/`, so a channel
 * line can never make the engine open an arbitrary file.
 */
export class ChannelFiles {
  private readonly followed = new Map<string, ChannelFile>();
  /** Channel files listed before, with their size when last looked at (undefined: not looked at). */
  private readonly seen = new Map<string, number | undefined>();
  private readonly dir: string;
  /** Sessions whose held calls hit the correlator's cap, said once each. */
  private readonly capNoted = new Set<string>();

  constructor(
    private readonly files: FileAccess,
    private readonly clock: Clock,
    private readonly claudeDir: string,
    private readonly correlator: Correlator,
    private readonly sink: EngineSink,
    /** A hook event named a transcript (already checked to be inside projects/); false when it is not one we follow. */
    private readonly onTranscriptNamed: (transcriptPath: string) => boolean,
    private readonly confinement: ProjectsConfinement,
  ) {
    this.dir = channelDirOf(claudeDir);
  }

  owns(p: string): boolean {
    return path.dirname(path.resolve(p)) === this.dir;
  }

  /** Follows channel files of active sessions (recently written, or a session already followed). */
  async discover(atStart: boolean, force: boolean): Promise<void> {
    const now = this.clock.now();
    for (const name of await this.files.readdir(this.dir).catch(() => [] as string[])) {
      const sessionId = sessionIdOfChannelFile(name);
      const p = path.join(this.dir, name);
      if (sessionId === undefined || this.followed.has(p) || this.sink.isForeign(sessionId)) continue;
      const wasSeen = this.seen.has(p);
      const seenSize = this.seen.get(p);
      if (!wasSeen) this.seen.set(p, undefined);
      const known = this.correlator.has(sessionId);
      // An old file is looked at again only on a forced rescan: a poll must not stat every file of the week.
      if (wasSeen && !known && !atStart && !force) continue;
      const st = !known || atStart ? await this.files.stat(p).catch(() => undefined) : undefined;
      if (!known) {
        if (!st?.isFile || now - st.mtimeMs > this.sink.activeWindowMs) {
          this.seen.set(p, st?.size);
          continue;
        }
      }
      // History: at start, what it holds now; a file seen before, what it held then; a new file has none.
      const historyEnd = atStart ? (st?.size ?? 0) : (seenSize ?? 0);
      // A change notification may have followed it while we were looking.
      if (!this.followed.has(p)) this.follow(p, sessionId, historyEnd);
    }
    if (this.seen.size > 100_000) this.seen.clear();
  }

  private follow(p: string, sessionId: string, historyEnd: number): ChannelFile {
    this.seen.delete(p);
    const cf: ChannelFile = { sessionId, file: new FollowedFile(p, this.files, this.clock, createChannelScanner(), historyEnd, CHANNEL_BYTES_PER_READ) };
    this.followed.set(p, cf);
    return cf;
  }

  async readAll(): Promise<void> {
    for (const cf of [...this.followed.values()]) await this.read(cf);
  }

  async readPath(changed: string): Promise<void> {
    const p = path.resolve(changed);
    let cf = this.followed.get(p);
    if (!cf) {
      const sessionId = sessionIdOfChannelFile(path.basename(p));
      if (sessionId === undefined || this.sink.isForeign(sessionId)) return;
      cf = this.follow(p, sessionId, this.seen.get(p) ?? 0);
    }
    await this.read(cf);
  }

  private read(cf: ChannelFile): Promise<void> {
    return cf.file.read((read, catchUp) => this.ingest(cf, read, catchUp)).catch(() => undefined);
  }

  private async ingest(cf: ChannelFile, read: TailRead<ChannelLine>, catchUp: boolean): Promise<void> {
    const observedAt = read.batch?.observedAt ?? this.clock.now();
    const events: EngineEvent[] = [];
    // The real path of each transcript named, once per read (a flood names the same one again and again).
    const confined = new Map<string, Promise<string | undefined>>();
    for (const line of read.lines) {
      if (line.scan.kind !== 'event') continue;
      let ev = line.scan.event;
      if (ev.session_id !== cf.sessionId || this.sink.isForeign(ev.session_id)) continue;
      let named = confined.get(ev.transcript_path);
      if (!named) confined.set(ev.transcript_path, (named = this.confinement.confine(ev.transcript_path)));
      // Judged by its real path (a symlink in projects/ must not lead out of it), named as the engine names files.
      const transcriptPath = await named;
      if (transcriptPath === undefined) continue;
      if (transcriptPath !== ev.transcript_path) ev = { ...ev, transcript_path: transcriptPath };
      if (!this.onTranscriptNamed(transcriptPath)) {
        // Only the session's own transcript decides it is foreign: a stray line naming another file must not hide it.
        if (path.basename(transcriptPath) === `${ev.session_id}.jsonl`) this.sink.markForeign(ev.session_id);
        continue;
      }
      // History's hook events count as activity when they happened, not when we caught up on them.
      events.push(...this.correlator.ingestHook(ev, catchUp ? Math.min(ev.at, observedAt) : observedAt));
    }
    this.noteHeldCap(cf.sessionId, observedAt);
    this.sink.emit(events, catchUp);
  }

  private noteHeldCap(sessionId: string, at: number): void {
    if (this.capNoted.has(sessionId) || this.correlator.heldCallsDropped(sessionId) === 0) return;
    if (this.capNoted.size > 10_000) this.capNoted.clear();
    this.capNoted.add(sessionId);
    this.sink.notice({ kind: 'held_calls_capped', at, session_id: sessionId, max_held: this.correlator.maxHeldCalls });
  }

  unfollowSession(sessionId: string): void {
    for (const [p, cf] of [...this.followed]) {
      if (cf.sessionId !== sessionId) continue;
      this.followed.delete(p);
      // Written again later (a resumed session): what we read was history, only what follows is live.
      this.seen.set(p, cf.file.seenUpTo);
      void cf.file.close().catch(() => undefined);
    }
  }

  /** Deletes channel files untouched for `maxAgeMs` (never one that is followed). */
  async prune(now: number, maxAgeMs: number | undefined, remove: (p: string) => Promise<void>): Promise<void> {
    const entries: { name: string; mtimeMs: number }[] = [];
    for (const name of await this.files.readdir(this.dir).catch(() => [] as string[])) {
      const st = await this.files.stat(path.join(this.dir, name)).catch(() => undefined);
      if (st?.isFile) entries.push({ name, mtimeMs: st.mtimeMs });
    }
    for (const name of chooseChannelFilesToPrune(entries, now, maxAgeMs)) {
      const p = path.join(this.dir, name);
      if (this.followed.has(p)) continue;
      await remove(p).catch(() => undefined);
      this.seen.delete(p);
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.followed.values()];
    this.followed.clear();
    for (const cf of all) await cf.file.close().catch(() => undefined);
  }
}
