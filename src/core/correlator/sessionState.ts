import type { EngineEvent } from '../engineEvents';
import type { SessionStats } from '../sessionStats';
import type { SessionLimits } from './sessionLimits';
import { type ScanResult, copiedFrom } from '../records';
import type { SessionSnapshot } from '../snapshot';
import type { TailRead } from '../tailTypes';
import type { HookRunEvent, HooksEvent, LandedEvent, MeasuredEvent, PostEvent, PreEvent, RecordEvent, WaitEvent } from '../channel/schema';
import { type CallFacts, type Observation, type WaitFact, type WrittenObservation, parseTimestamp } from './callFacts';
import { CallStates, type MeasuredOutbox } from './callStates';
import { SessionFacts } from './sessionFacts';
import { callEvent, callSnapshot, heldEventOf, sortedRecent } from './callOutputs';
import { Tombstones } from './tombstones';

export interface TranscriptInput {
  sessionId: string;
  transcriptPath: string;
  /** The session's own transcript (not a subagent's): its lines and batches make the timeline. */
  isMain: boolean;
  agentId?: string;
  read: TailRead<ScanResult>;
  /** Lines read while catching up at start: indexed and counted, but no call events and no lag. */
  historical?: boolean;
  /** For history: when the file was last written (its mtime), the session's activity instead of the read time. */
  activityAt?: number;
}

/**
 * One session: its calls and stats. Pure: every input carries its own time.
 * It routes each input to what it concerns, and moves calls between them:
 * - the session's facts (./sessionFacts.ts): its files, what its records say, the counts of its stats;
 * - its calls kept in full and their states, held → written → result (./callStates.ts);
 * - its tombstones, the calls pruned from memory (./tombstones.ts): an input for a buried call goes
 *   there, never to the calls, so a late event of a gone call is not taken for a new one.
 * Pruning (here) buries the finished calls outside the recent ring; the snapshot and the
 * session event are made here from the facts and the calls.
 */
export class SessionState {
  private readonly facts: SessionFacts;
  readonly calls: CallStates;
  private readonly tombstones: Tombstones;
  lastActivityAt = 0;
  lastEmitted = '';

  constructor(
    readonly sessionId: string,
    private limits: SessionLimits,
    outbox?: MeasuredOutbox,
  ) {
    // Counters keyed by call hold as many calls as memory and the tombstones do (a late sighting of a
    // buried call may move its counts: one the counters had forgotten would count twice). They forget
    // the call counted first, so a call left unfinished while thousands more are buried can still fall
    // out first; rare, and bounded either way.
    this.facts = new SessionFacts(limits.rememberedCalls + limits.maxLiveCalls, limits.batchesKept);
    this.calls = new CallStates(sessionId, this.facts, limits, outbox);
    this.tombstones = new Tombstones(sessionId, this.facts);
  }

  setLimits(limits: SessionLimits): void {
    this.limits = limits;
    this.calls.setLimits(limits);
    this.facts.disk.setBatchesKept(limits.batchesKept);
  }

  get transcriptPath(): string {
    return this.facts.transcriptPath;
  }

  /** Held calls dropped to stay within maxHeldCalls. */
  get heldDropped(): number {
    return this.calls.heldDropped;
  }

  private touch(at: number): void {
    if (at > this.lastActivityAt) this.lastActivityAt = at;
  }

  ingestPre(ev: PreEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    this.facts.noteHookPath(ev.transcript_path);
    const tomb = this.tombstones.get(ev.tool_use_id);
    if (tomb) this.tombstones.ingestPre(tomb, ev, observedAt, out);
    else this.calls.ingestPre(ev, observedAt, out);
  }

  ingestWait(ev: WaitEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    const fact: WaitFact = { at: ev.at, outcome: ev.outcome, polls: ev.polls, waitedMs: ev.waited_ms, bytesOnDisk: ev.bytes_on_disk, source: ev.source ?? '' };
    const key = `${ev.tool_use_id}\u0000${fact.source}`;
    const isNew = !this.facts.waits.has(key);
    // What the wait's looks prove may say the call's verdict again: after the wait, which is why.
    const retold: EngineEvent[] = [];
    const tomb = this.tombstones.get(ev.tool_use_id);
    if (tomb) {
      // A buried call's wait is counted (and said) once, as it came; its looks count as a live call's.
      if (isNew) this.facts.waits.set(key, fact.outcome);
      this.tombstones.ingestWait(tomb, ev, observedAt, retold);
    } else this.facts.waits.set(key, this.calls.ingestWait(ev, fact, observedAt, retold).outcome);
    if (isNew) {
      out.push(
        callEvent(this.sessionId, ev, {
          event: 'wait',
          at: ev.at,
          outcome: ev.outcome,
          polls: ev.polls,
          waited_ms: ev.waited_ms,
          bytes_on_disk: ev.bytes_on_disk,
          ...(ev.source ? { source: ev.source } : {}),
          ...this.facts.versionOf(this.calls.get(ev.tool_use_id)),
        }),
      );
    }
    for (const e of retold) out.push(e);
  }

  ingestPost(ev: PostEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    const tomb = this.tombstones.get(ev.tool_use_id);
    if (tomb) this.tombstones.ingestPost(tomb, ev, observedAt, out);
    else this.calls.ingestPost(ev, observedAt, out);
  }

  /** The mod timed the call's settings PreToolUse hooks. A buried call's are not kept: its figure was final when it was buried. */
  ingestHooks(ev: HooksEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    if (!this.tombstones.has(ev.tool_use_id)) this.calls.ingestHooks(ev, out);
  }

  /** A wrapped hook's run. A buried call's are not kept: its row is long gone. */
  ingestHookRun(ev: HookRunEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    if (!this.tombstones.has(ev.tool_use_id)) this.calls.ingestHookRun(ev, out);
  }

  /** The mod saw a row born (`session.append`): kept until the row's line is read. */
  ingestRecordBirth(ev: RecordEvent, observedAt: number): void {
    this.touch(observedAt);
    this.facts.births.note(ev.uuid, ev.at);
  }

  /** The watcher our post hook left behind saw the record land (src/rules/hookEvidence.ts). */
  ingestLanded(ev: LandedEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    const tomb = this.tombstones.get(ev.tool_use_id);
    if (tomb) this.tombstones.ingestLanded(tomb, ev, observedAt, out);
    else this.calls.ingestLanded(ev, observedAt, out);
  }

  /** An engine's live read of a call's record, kept in the channel (./measured.ts). A buried call's verdict was final when it was buried. */
  ingestMeasured(ev: MeasuredEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    if (!this.tombstones.has(ev.tool_use_id)) this.calls.ingestMeasured(ev, observedAt, out);
  }

  ingestTranscript(input: TranscriptInput, out: EngineEvent[]): void {
    const { read, transcriptPath: path } = input;
    const historical = input.historical === true;
    const disk = this.facts.disk;
    this.facts.noteTranscriptPath(path, input.isMain, input.agentId);
    for (const change of read.changes) {
      this.touch(change.at);
      out.push({ event: 'tail', session_id: this.sessionId, transcript_path: path, at: change.at, change: change.kind, generation: change.generation });
      if (input.isMain) disk.noteChange(change.generation);
      disk.noteFile(path, change.generation, 0);
    }
    const batch = read.batch;
    if (!batch) return;
    disk.noteFile(path, batch.generation, batch.lastLine);
    this.touch(historical && input.activityAt !== undefined ? Math.min(input.activityAt, batch.observedAt) : batch.observedAt);
    const batchKey = `${path}\u0000${batch.generation}\u0000${batch.firstLine}`;
    if (input.isMain) disk.noteMainBatch(batchKey, batch);
    const ranges = this.facts.linesOf(path, batch.generation);
    const fresh = read.lines.filter((l) => ranges.add(l.line));
    const resultsInBatch = new Set<string>();
    for (const l of read.lines) if (l.scan.kind === 'record') for (const id of l.scan.toolResults) resultsInBatch.add(id);
    const obsBase = { observedAt: batch.observedAt, path, generation: batch.generation, batchKey, batchFirstLine: batch.firstLine, batchLastLine: batch.lastLine, historical };
    for (const l of fresh) {
      if (l.scan.kind === 'malformed') {
        disk.countMalformed(path, batch.generation);
        continue;
      }
      const rec = l.scan;
      const obs: Observation = { ...obsBase, line: l.line };
      this.facts.noteMetadata(rec, obs);
      // A fork's copy of its parent's calls: history, whenever it was read.
      const origin = rec.toolUses.length > 0 ? copiedFrom(rec) : undefined;
      for (const tu of rec.toolUses) {
        const written: WrittenObservation = {
          ...obs,
          ...(origin !== undefined ? { historical: true } : {}),
          byteEnd: l.byteEnd,
          recordAt: parseTimestamp(rec.timestamp),
          withResult: resultsInBatch.has(tu.id),
          ...(rec.messageId !== undefined ? { messageId: rec.messageId } : {}),
          ...(rec.apiBlockIndex !== undefined ? { blockIndex: rec.apiBlockIndex } : {}),
          ...(rec.version !== undefined ? { version: rec.version } : {}),
          ...(rec.perCall !== undefined ? { perCall: rec.perCall } : {}),
        };
        if (!this.tombstones.has(tu.id)) this.calls.ingestToolUse(tu.id, tu.name, input.agentId ?? rec.agentId, written, origin, out, l.partialDwellMs);
      }
      for (const id of rec.toolResults) if (!this.tombstones.has(id)) this.calls.ingestResult(id, obs, out);
      if (!historical && rec.uuid !== undefined && origin === undefined) this.facts.ingestRecordLine(this.sessionId, rec, rec.uuid, obs, input.agentId ?? rec.agentId, out);
    }
    this.prune(out);
  }

  /** The Claude Code version of the session's latest call record, when one said it. */
  get claudeVersion(): string | undefined {
    return this.facts.version?.value;
  }

  get cwdValue(): string | undefined {
    return this.facts.cwd?.value;
  }

  stats(): SessionStats {
    return this.facts.stats(this.calls.heldCount());
  }

  snapshot(): SessionSnapshot {
    const f = this.facts;
    const held = this.calls.held().map((c) => callSnapshot(this.sessionId, c, f.heldPlace(c)));
    const recent = sortedRecent(this.calls.byId.values())
      .slice(0, this.limits.recentCalls)
      .map((c) => callSnapshot(this.sessionId, c));
    return {
      session_id: this.sessionId,
      transcript_path: this.transcriptPath,
      ...(f.title ? { title: f.title.value } : {}),
      ...(f.firstPrompt ? { first_prompt: f.firstPrompt.value } : {}),
      ...(f.cwd ? { cwd: f.cwd.value } : {}),
      ...(f.startedAt !== undefined ? { started_at: f.startedAt } : {}),
      ...(f.version ? { claude_version: f.version.value } : {}),
      ...(f.gitBranch ? { git_branch: f.gitBranch.value } : {}),
      held,
      recent,
      stats: this.stats(),
      last_line: f.disk.lastLine,
      bytes_on_disk: f.disk.bytes,
      last_activity_at: this.lastActivityAt,
      batches: f.disk.batchRows(),
      record_lags: f.recordLags.rows(),
    };
  }

  /** The session event when title or stats changed since the last one; undefined otherwise. */
  sessionEventIfChanged(at: number): EngineEvent | undefined {
    const stats = this.stats();
    const title = this.facts.title?.value;
    const cwd = this.facts.cwd;
    const key = JSON.stringify([stats, title, cwd?.value, this.transcriptPath]);
    if (key === this.lastEmitted) return undefined;
    this.lastEmitted = key;
    return {
      event: 'session',
      session_id: this.sessionId,
      transcript_path: this.transcriptPath,
      at,
      ...(title !== undefined ? { title } : {}),
      ...(cwd ? { cwd: cwd.value } : {}),
      stats,
    };
  }

  /** Hook events alone (a transcript we cannot read) must not grow the calls without end either. */
  pruneIfOverfull(out: EngineEvent[]): void {
    if (this.calls.size > this.limits.maxLiveCalls) this.prune(out);
  }

  /** Keeps the recent-calls ring, held and unfinished calls; finished older calls become tombstones. */
  private prune(out: EngineEvent[]): void {
    const calls = this.calls.byId;
    const ring = new Set(sortedRecent(calls.values()).slice(0, this.limits.recentCalls).map((c) => c.id));
    for (const c of calls.values()) {
      if (c.written && c.result && !ring.has(c.id)) this.bury(c, out);
    }
    if (calls.size <= this.limits.maxLiveCalls) return;
    // Past the hard cap: drop the calls touched longest ago, whatever their state (a session that never writes results).
    const byAge = [...calls.values()].filter((c) => !ring.has(c.id)).sort((a, b) => ageKey(a) - ageKey(b));
    for (const c of byAge) {
      if (calls.size <= this.limits.maxLiveCalls) break;
      this.bury(c, out);
    }
  }

  private bury(c: CallFacts, out: EngineEvent[]): void {
    // Its hooks' figure is final now, if it was not (a buried call takes no more reports of them).
    this.calls.leaving(c, out);
    this.calls.byId.delete(c.id);
    this.tombstones.bury(c, this.limits.rememberedCalls);
  }

  /** Held events for calls still held, e.g. after catching up on history at start. */
  heldEvents(): EngineEvent[] {
    return this.snapshot().held.map((h) => heldEventOf(h, h.transcript_path ?? this.transcriptPath));
  }
}

function ageKey(c: CallFacts): number {
  return Math.max(c.written?.observedAt ?? 0, c.result?.observedAt ?? 0, c.firedAt ?? 0, c.postAt ?? 0);
}
