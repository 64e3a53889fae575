import type { EngineEvent, SessionStats } from '../engineEvents';
import { type ScanResult, type ScannedRecord, copiedFrom, NO_PER_CALL } from '../records';
import type { SessionSnapshot } from '../snapshot';
import type { TailRead } from '../tailTypes';
import type { LandedEvent, PostEvent, PreEvent, RecordEvent, WaitEvent } from '../channel/schema';
import { RecordBirths } from './recordBirths';
import { RecordLags } from './recordLags';
import { betterLanding, earlierSighting, type HookSighting, type LandingSighting, landingOf, sightingOf, verdictFromHook } from '../../rules/hookEvidence';
import { isBetterFire } from '../../rules/fireTime';
import { KeyedCounter, LagWindow } from '../stats';
import {
  type CallFacts,
  type Observation,
  type WaitFact,
  type WrittenObservation,
  compareObservations,
  compareWaits,
  evidenceOf,
  heldNow,
  lagOf,
  parseTimestamp,
} from './callFacts';
import { subagentTranscriptPath } from '../discovery';
import { LineRanges } from './lineRanges';
import { SessionDisk } from './sessionDisk';
import { type EventSubject, type HeldPlace, callEvent, callSnapshot, heldEventOf, sortedRecent } from './snapshots';

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

export interface SessionLimits {
  recentCalls: number;
  /** Finished calls remembered (as tombstones and counter keys) so late duplicates do not count twice. */
  rememberedCalls: number;
  /** Hard cap on calls kept in full; past it the oldest unfinished ones are dropped too. */
  maxLiveCalls: number;
  /**
   * Calls fired and not written kept per session: past it a new pre event drops
   * the call fired longest ago, so a flood of pre events for ids that are never
   * written (forged, or a broken hook) keeps each later event's cost bounded.
   */
  maxHeldCalls: number;
  batchesKept: number;
}

/** What is left of a call pruned from memory: enough to ignore its replays and join a late hook event. */
interface Tombstone {
  observedAt: number | null;
  fired: boolean;
  /** Indexed as history: its shape can still be proven by hook sightings that arrive late. */
  historical: boolean;
  pre?: HookSighting;
  post?: HookSighting;
  landed?: LandingSighting;
}

type Keyed<T> = { key: Observation; value: T };

/** One session's calls and stats. Pure: every input carries its own time. */
export class SessionState {
  readonly calls = new Map<string, CallFacts>();
  private readonly tombstones: Map<string, Tombstone> = new Map();
  private readonly lags: LagWindow;
  private readonly waits: KeyedCounter<'seen' | 'behind' | 'error'>;
  private readonly shapes: KeyedCounter<'before' | 'with'>;
  private writtenCount = 0;
  private readonly lines = new Map<string, LineRanges>();
  private readonly disk: SessionDisk;
  /** Rows' birth times by uuid, from the mod's `record` events. */
  private readonly births = new RecordBirths();
  /** The records reported live, and their lags by type. */
  private readonly recordLags = new RecordLags();
  private title?: Keyed<string>;
  private firstPrompt?: Keyed<string>;
  private cwd?: Keyed<string>;
  /** The Claude Code version of the latest call record (a session resumed under a newer build changes it). */
  private version?: Keyed<string>;
  /** The branch of the session's latest own record that names one: sessions of one name are told apart by it. */
  private gitBranch?: Keyed<string>;
  /**
   * Earliest record `timestamp` seen. The scanner keeps `timestamp` only on
   * records with tool uses, so this is when the session's first call was
   * made as far as its records show, not its very first line.
   */
  private startedAt?: number;
  private mainPath?: string;
  private hookPath?: string;
  /** Each subagent's own transcript, by agent id: a held subagent call's record lands there, not in the main file. */
  private readonly agentPaths = new Map<string, string>();
  lastActivityAt = 0;
  lastEmitted = '';
  /** Held calls dropped to stay within maxHeldCalls. */
  heldDropped = 0;

  constructor(
    readonly sessionId: string,
    private limits: SessionLimits,
  ) {
    this.lags = new LagWindow(limits.rememberedCalls);
    this.waits = new KeyedCounter(limits.rememberedCalls);
    this.shapes = new KeyedCounter(limits.rememberedCalls);
    this.disk = new SessionDisk(limits.batchesKept);
  }

  setLimits(limits: SessionLimits): void {
    this.limits = limits;
    this.disk.setBatchesKept(limits.batchesKept);
  }

  get transcriptPath(): string {
    return this.mainPath ?? this.hookPath ?? '';
  }

  private touch(at: number): void {
    if (at > this.lastActivityAt) this.lastActivityAt = at;
  }

  private call(id: string): CallFacts {
    let c = this.calls.get(id);
    if (!c) {
      c = { id };
      this.calls.set(id, c);
    }
    return c;
  }

  ingestPre(ev: PreEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    // The smallest path, not the first: the snapshot must not depend on arrival order.
    if (!this.hookPath || ev.transcript_path < this.hookPath) this.hookPath = ev.transcript_path;
    const tomb = this.tombstones.get(ev.tool_use_id);
    const sighting = sightingOf(ev);
    if (tomb) {
      if (sighting) this.sightTomb(ev.tool_use_id, tomb, { pre: earlierSighting(tomb.pre, sighting) });
      if (!tomb.fired && tomb.observedAt !== null) {
        tomb.fired = true;
        const lag = Math.max(0, tomb.observedAt - ev.at);
        this.lags.set(ev.tool_use_id, lag);
        out.push(this.event(ev, { event: 'joined', at: observedAt, fired_at: ev.at, lag_ms: lag, transport: ev.transport ?? 'command' }));
      }
      return;
    }
    if (!this.calls.has(ev.tool_use_id)) this.makeRoomForHeld();
    const c = this.call(ev.tool_use_id);
    const lagBefore = lagOf(c);
    const first = c.firedAt === undefined;
    // Several transports may report one call (the mod and a command hook): it is one call, fired when the best report says.
    const report = { at: ev.at, transport: ev.transport ?? 'command' } as const;
    if (isBetterFire(first ? undefined : { at: c.firedAt as number, transport: c.transport ?? 'command' }, report)) {
      c.firedAt = report.at;
      c.transport = report.transport;
    }
    c.toolName ??= ev.tool_name;
    c.agentId ??= ev.agent_id;
    c.timeoutMs ??= ev.timeout_ms;
    c.hookMode ??= ev.mode;
    // The session's path when it is that one: one string, not a copy per call (a flood holds 500 calls per session).
    c.hookTranscriptPath ??= ev.transcript_path === this.hookPath ? this.hookPath : ev.transcript_path;
    if (sighting) {
      c.preSighting = earlierSighting(c.preSighting, sighting);
      this.countShape(c);
    }
    if (heldNow(c)) {
      if (first) {
        const transcriptPath = (c.agentId !== undefined && this.heldPlace(c).path) || ev.transcript_path;
        out.push(this.event({ tool_use_id: ev.tool_use_id, tool_name: ev.tool_name, transcript_path: transcriptPath, agent_id: ev.agent_id }, { event: 'held', at: ev.at, transport: c.transport, ...(ev.timeout_ms ? { timeout_ms: ev.timeout_ms } : {}) }));
      }
      return;
    }
    const lag = lagOf(c);
    if (lag !== null && lag !== lagBefore) {
      this.lags.set(c.id, lag);
      out.push(this.event(ev, { event: 'joined', at: observedAt, fired_at: c.firedAt as number, lag_ms: lag, transport: c.transport ?? 'command' }));
    }
  }

  ingestWait(ev: WaitEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    const fact: WaitFact = { at: ev.at, outcome: ev.outcome, polls: ev.polls, waitedMs: ev.waited_ms, bytesOnDisk: ev.bytes_on_disk, source: ev.source ?? '' };
    const key = `${ev.tool_use_id}\u0000${fact.source}`;
    const isNew = !this.waits.has(key);
    let canonical = fact;
    if (!this.tombstones.has(ev.tool_use_id)) {
      const c = this.call(ev.tool_use_id);
      c.toolName ??= ev.tool_name;
      c.agentId ??= ev.agent_id;
      const waits = (c.waits ??= new Map());
      const known = waits.get(fact.source);
      if (known && compareWaits(known, fact) <= 0) canonical = known;
      waits.set(fact.source, canonical);
    } else if (!isNew) return;
    this.waits.set(key, canonical.outcome);
    if (isNew) {
      out.push(
        this.event(ev, {
          event: 'wait',
          at: ev.at,
          outcome: ev.outcome,
          polls: ev.polls,
          waited_ms: ev.waited_ms,
          bytes_on_disk: ev.bytes_on_disk,
          ...(ev.source ? { source: ev.source } : {}),
          ...this.versionOf(this.calls.get(ev.tool_use_id)),
        }),
      );
    }
  }

  ingestPost(ev: PostEvent, observedAt: number, out: EngineEvent[]): void {
    this.touch(observedAt);
    const sighting = sightingOf(ev);
    const tomb = this.tombstones.get(ev.tool_use_id);
    if (tomb) {
      if (sighting) this.sightTomb(ev.tool_use_id, tomb, { post: earlierSighting(tomb.post, sighting) });
      return;
    }
    const c = this.call(ev.tool_use_id);
    c.toolName ??= ev.tool_name;
    if (sighting) {
      c.postSighting = earlierSighting(c.postSighting, sighting);
      this.countShape(c);
    }
    const first = c.postAt === undefined;
    if (first || ev.at < (c.postAt as number)) c.postAt = ev.at;
    if (first) out.push(this.event(ev, { event: 'post', at: ev.at }));
  }

  /** The mod saw a row born (`session.append`): kept until the row's line is read. */
  ingestRecordBirth(ev: RecordEvent, observedAt: number): void {
    this.touch(observedAt);
    this.births.note(ev.uuid, ev.at);
  }

  /** The watcher our post hook left behind saw the record land (see ../hookEvidence.ts). */
  ingestLanded(ev: LandedEvent, observedAt: number): void {
    this.touch(observedAt);
    const landing = landingOf(ev);
    const tomb = this.tombstones.get(ev.tool_use_id);
    if (tomb) {
      this.sightTomb(ev.tool_use_id, tomb, { landed: betterLanding(tomb.landed, landing) });
      return;
    }
    const c = this.call(ev.tool_use_id);
    c.toolName ??= ev.tool_name;
    c.landed = betterLanding(c.landed, landing);
    this.countShape(c);
  }

  /** Counts a call's shape once it is known: measured live, or proven for history by its hook's sightings. */
  private countShape(c: CallFacts): void {
    const shape = evidenceOf(c)?.shape;
    if (shape === 'with_result' || shape === 'before_result') this.shapes.set(c.id, shape === 'with_result' ? 'with' : 'before');
  }

  /** A late sighting of a call already pruned: its shape still counts, from what the tombstone kept. */
  private sightTomb(id: string, tomb: Tombstone, sighting: Pick<Tombstone, 'pre' | 'post' | 'landed'>): void {
    Object.assign(tomb, sighting);
    if (!tomb.historical) return;
    const shape = verdictFromHook(tomb.pre, tomb.post, tomb.landed).shape;
    if (shape !== undefined) this.shapes.set(id, shape === 'with_result' ? 'with' : 'before');
  }

  ingestTranscript(input: TranscriptInput, out: EngineEvent[]): void {
    const { read, transcriptPath: path } = input;
    const historical = input.historical === true;
    if (input.isMain && (!this.mainPath || path < this.mainPath)) this.mainPath = path;
    if (!input.isMain && input.agentId !== undefined) {
      const known = this.agentPaths.get(input.agentId);
      if (known === undefined || path < known) this.agentPaths.set(input.agentId, path);
    }
    for (const change of read.changes) {
      this.touch(change.at);
      out.push({ event: 'tail', session_id: this.sessionId, transcript_path: path, at: change.at, change: change.kind, generation: change.generation });
      if (input.isMain) this.disk.noteChange(change.generation);
      this.disk.noteFile(path, change.generation, 0);
    }
    const batch = read.batch;
    if (!batch) return;
    this.disk.noteFile(path, batch.generation, batch.lastLine);
    this.touch(historical && input.activityAt !== undefined ? Math.min(input.activityAt, batch.observedAt) : batch.observedAt);
    const batchKey = `${path}\u0000${batch.generation}\u0000${batch.firstLine}`;
    if (input.isMain) this.disk.noteMainBatch(batchKey, batch);
    const rangesKey = `${path}\u0000${batch.generation}`;
    let ranges = this.lines.get(rangesKey);
    if (!ranges) this.lines.set(rangesKey, (ranges = new LineRanges()));
    const fresh = read.lines.filter((l) => ranges.add(l.line));
    const resultsInBatch = new Set<string>();
    for (const l of read.lines) if (l.scan.kind === 'record') for (const id of l.scan.toolResults) resultsInBatch.add(id);
    const obsBase = { observedAt: batch.observedAt, path, generation: batch.generation, batchKey, batchFirstLine: batch.firstLine, batchLastLine: batch.lastLine, historical };
    for (const l of fresh) {
      if (l.scan.kind === 'malformed') {
        this.disk.countMalformed(path, batch.generation);
        continue;
      }
      const rec = l.scan;
      const obs: Observation = { ...obsBase, line: l.line };
      this.noteMetadata(rec, obs);
      // A fork's copy of its parent's calls: history, whenever it was read.
      const origin = rec.toolUses.length > 0 ? copiedFrom(rec) : undefined;
      for (const tu of rec.toolUses) {
        const written: WrittenObservation = {
          ...obs,
          ...(origin !== undefined ? { historical: true } : {}),
          recordAt: parseTimestamp(rec.timestamp),
          withResult: resultsInBatch.has(tu.id),
          ...(rec.messageId !== undefined ? { messageId: rec.messageId } : {}),
          ...(rec.apiBlockIndex !== undefined ? { blockIndex: rec.apiBlockIndex } : {}),
          ...(rec.version !== undefined ? { version: rec.version } : {}),
          ...(rec.perCall !== undefined ? { perCall: rec.perCall } : {}),
        };
        this.ingestToolUse(tu.id, tu.name, input.agentId ?? rec.agentId, written, origin, out, l.partialDwellMs);
      }
      for (const id of rec.toolResults) this.ingestResult(id, obs, out);
      if (!historical && rec.uuid !== undefined && origin === undefined) this.ingestRecordLine(rec, rec.uuid, obs, input.agentId ?? rec.agentId, out);
    }
    this.prune();
  }

  /**
   * A live record with a uuid reached disk: born (the mod's time, else its own
   * timestamp) → written. Reported once per uuid, whatever reads it again.
   */
  private ingestRecordLine(rec: ScannedRecord, uuid: string, obs: Observation, agentId: string | undefined, out: EngineEvent[]): void {
    if (!this.recordLags.firstSight(uuid)) return;
    const fromMod = this.births.bornAt(uuid);
    const bornAt = fromMod ?? parseTimestamp(rec.timestamp);
    const lag = bornAt === null ? null : Math.max(0, obs.observedAt - bornAt);
    const type = rec.type ?? null;
    if (lag !== null) this.recordLags.add(uuid, type ?? '(none)', lag, fromMod !== undefined);
    out.push({
      event: 'record',
      session_id: this.sessionId,
      transcript_path: obs.path,
      at: obs.observedAt,
      ...(agentId !== undefined ? { agent_id: agentId } : {}),
      uuid,
      type,
      line: obs.line,
      born_at: bornAt,
      born_from: fromMod !== undefined ? 'mod' : bornAt !== null ? 'timestamp' : null,
      written_at: obs.observedAt,
      lag_ms: lag,
    });
  }

  private ingestToolUse(id: string, name: string, agentId: string | undefined, obs: WrittenObservation, origin: string | undefined, out: EngineEvent[], partialDwellMs = 0): void {
    if (this.tombstones.has(id)) return;
    const c = this.call(id);
    c.toolName ??= name;
    c.agentId ??= agentId;
    c.copiedFrom ??= origin;
    const first = !c.written;
    if (!first && compareObservations(obs, c.written as WrittenObservation) >= 0) return;
    c.written = obs;
    if (first) this.writtenCount++;
    const lag = lagOf(c);
    if (lag !== null) this.lags.set(id, lag);
    this.countShape(c);
    if (!first || obs.historical) return;
    out.push(
      this.callEvent(c, obs.path, {
        event: 'written',
        ...(c.transport !== undefined ? { transport: c.transport } : {}),
        at: obs.observedAt,
        line: obs.line,
        generation: obs.generation,
        record_at: obs.recordAt,
        fired_at: c.firedAt ?? null,
        lag_ms: lag,
        with_result: obs.withResult,
        ...(obs.messageId !== undefined ? { message_id: obs.messageId } : {}),
        ...(obs.blockIndex !== undefined ? { block_index: obs.blockIndex } : {}),
        ...(obs.version !== undefined ? { claude_version: obs.version } : {}),
        record: obs.perCall ?? NO_PER_CALL,
        batch_first_line: obs.batchFirstLine,
        batch_last_line: obs.batchLastLine,
        ...(partialDwellMs > 0 ? { partial_dwell_ms: partialDwellMs } : {}),
      }),
    );
    // A result that arrived before its record (only in odd orders) is reported once the call is written.
    if (c.result) this.emitResult(c, out);
  }

  private ingestResult(id: string, live: Observation, out: EngineEvent[]): void {
    if (this.tombstones.has(id)) return;
    const c = this.call(id);
    // The result of a copied call was copied with it (it carries no mark of its own).
    const obs = c.copiedFrom !== undefined && !live.historical ? { ...live, historical: true } : live;
    const first = !c.result;
    if (!first && compareObservations(obs, c.result as Observation) >= 0) return;
    c.result = obs;
    if (first && c.written) this.emitResult(c, out);
  }

  private emitResult(c: CallFacts, out: EngineEvent[]): void {
    const r = c.result as Observation;
    if (r.historical) return;
    out.push(this.callEvent(c, r.path, { event: 'result', at: r.observedAt, line: r.line, with_result: c.written?.batchKey === r.batchKey }));
  }

  private noteMetadata(rec: ScannedRecord, obs: Observation): void {
    // The latest title wins; the first prompt and cwd are the earliest seen.
    if (rec.title && (!this.title || compareObservations(obs, this.title.key) > 0)) this.title = { key: obs, value: rec.title };
    if (rec.prompt && !rec.isMetadata && (!this.firstPrompt || compareObservations(obs, this.firstPrompt.key) < 0)) this.firstPrompt = { key: obs, value: rec.prompt };
    if (rec.cwd && (!this.cwd || compareObservations(obs, this.cwd.key) < 0)) this.cwd = { key: obs, value: rec.cwd };
    // A fork's copies were written by the parent's build: only the session's own records say its version.
    if (rec.version && copiedFrom(rec) === undefined && (!this.version || compareObservations(obs, this.version.key) > 0)) this.version = { key: obs, value: rec.version };
    // The latest: a session that switched branches is on the last one. A fork's copies carry the parent's.
    if (rec.gitBranch && copiedFrom(rec) === undefined && (!this.gitBranch || compareObservations(obs, this.gitBranch.key) > 0)) this.gitBranch = { key: obs, value: rec.gitBranch };
    const at = parseTimestamp(rec.timestamp);
    if (at !== null && (this.startedAt === undefined || at < this.startedAt)) this.startedAt = at;
  }

  /** The version that wrote the call's record, else the session's latest: `{}` while neither is known. */
  private versionOf(c: CallFacts | undefined): { claude_version?: string } {
    const v = c?.written?.version ?? this.version?.value;
    return v === undefined ? {} : { claude_version: v };
  }

  /** The Claude Code version of the session's latest call record, when one said it. */
  get claudeVersion(): string | undefined {
    return this.version?.value;
  }

  get cwdValue(): string | undefined {
    return this.cwd?.value;
  }

  stats(): SessionStats {
    const lag = this.lags.summary();
    let held = 0;
    for (const c of this.calls.values()) if (heldNow(c)) held++;
    return {
      waits_seen: this.waits.count('seen'),
      waits_behind: this.waits.count('behind'),
      held_now: held,
      calls_written: this.writtenCount,
      lag_p50_ms: lag.p50,
      lag_p95_ms: lag.p95,
      lag_max_ms: lag.max,
      shape_before_result: this.shapes.count('before'),
      shape_with_result: this.shapes.count('with'),
      shape_unknown: Math.max(0, this.writtenCount - this.shapes.count('before') - this.shapes.count('with')),
      malformed_lines: this.disk.malformedLines(),
    };
  }

  snapshot(): SessionSnapshot {
    const held = [...this.calls.values()]
      .filter(heldNow)
      .sort((a, b) => (a.firedAt as number) - (b.firedAt as number) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((c) => callSnapshot(this.sessionId, c, this.heldPlace(c)));
    const recent = sortedRecent(this.calls.values())
      .slice(0, this.limits.recentCalls)
      .map((c) => callSnapshot(this.sessionId, c));
    return {
      session_id: this.sessionId,
      transcript_path: this.transcriptPath,
      ...(this.title ? { title: this.title.value } : {}),
      ...(this.firstPrompt ? { first_prompt: this.firstPrompt.value } : {}),
      ...(this.cwd ? { cwd: this.cwd.value } : {}),
      ...(this.startedAt !== undefined ? { started_at: this.startedAt } : {}),
      ...(this.version ? { claude_version: this.version.value } : {}),
      ...(this.gitBranch ? { git_branch: this.gitBranch.value } : {}),
      held,
      recent,
      stats: this.stats(),
      last_line: this.disk.lastLine,
      bytes_on_disk: this.disk.bytes,
      last_activity_at: this.lastActivityAt,
      batches: this.disk.batchRows(),
      record_lags: this.recordLags.rows(),
    };
  }

  /** The session event when title or stats changed since the last one; undefined otherwise. */
  sessionEventIfChanged(at: number): EngineEvent | undefined {
    const stats = this.stats();
    const title = this.title?.value;
    const key = JSON.stringify([stats, title, this.cwd?.value, this.transcriptPath]);
    if (key === this.lastEmitted) return undefined;
    this.lastEmitted = key;
    return {
      event: 'session',
      session_id: this.sessionId,
      transcript_path: this.transcriptPath,
      at,
      ...(title !== undefined ? { title } : {}),
      ...(this.cwd ? { cwd: this.cwd.value } : {}),
      stats,
    };
  }

  /**
   * At maxHeldCalls held, drops the one fired first: nothing of it is on disk,
   * so it leaves no tombstone (a flood must not push out the tombstones of real
   * calls); should its record come after all, it is written without a lag.
   */
  private makeRoomForHeld(): void {
    let held = 0;
    let oldest: CallFacts | undefined;
    for (const c of this.calls.values()) {
      if (!heldNow(c)) continue;
      held++;
      if (!oldest || (c.firedAt as number) < (oldest.firedAt as number) || (c.firedAt === oldest.firedAt && c.id < oldest.id)) oldest = c;
    }
    if (held < this.limits.maxHeldCalls || !oldest) return;
    this.calls.delete(oldest.id);
    this.heldDropped++;
  }

  /** Hook events alone (a transcript we cannot read) must not grow the calls without end either. */
  pruneIfOverfull(): void {
    if (this.calls.size > this.limits.maxLiveCalls) this.prune();
  }

  /** Keeps the recent-calls ring, held and unfinished calls; finished older calls become tombstones. */
  private prune(): void {
    const ring = new Set(sortedRecent(this.calls.values()).slice(0, this.limits.recentCalls).map((c) => c.id));
    for (const c of this.calls.values()) {
      if (c.written && c.result && !ring.has(c.id)) this.bury(c);
    }
    if (this.calls.size <= this.limits.maxLiveCalls) return;
    // Past the hard cap: drop the calls touched longest ago, whatever their state (a session that never writes results).
    const byAge = [...this.calls.values()].filter((c) => !ring.has(c.id)).sort((a, b) => ageKey(a) - ageKey(b));
    for (const c of byAge) {
      if (this.calls.size <= this.limits.maxLiveCalls) break;
      this.bury(c);
    }
  }

  private bury(c: CallFacts): void {
    this.calls.delete(c.id);
    this.tombstones.set(c.id, {
      observedAt: c.written && !c.written.historical ? c.written.observedAt : null,
      fired: c.firedAt !== undefined,
      historical: c.written?.historical === true,
      ...(c.preSighting ? { pre: c.preSighting } : {}),
      ...(c.postSighting ? { post: c.postSighting } : {}),
      ...(c.landed ? { landed: c.landed } : {}),
    });
    while (this.tombstones.size > this.limits.rememberedCalls) this.tombstones.delete(this.tombstones.keys().next().value as string);
  }

  private event<const F extends object>(ev: EventSubject, fields: F) {
    return callEvent(this.sessionId, ev, fields);
  }

  private callEvent<const F extends object>(c: CallFacts, path: string, fields: F) {
    return callEvent(this.sessionId, { tool_use_id: c.id, tool_name: c.toolName, transcript_path: path, agent_id: c.agentId }, fields);
  }

  /**
   * Where a held call's record will land: a subagent call in its subagent's
   * own transcript (known once that file was read; else the place Claude Code
   * writes it, with no held line: nothing of it was seen), any other call in
   * the session's main transcript. The held line is that file's last line on disk.
   */
  private heldPlace(c: CallFacts): HeldPlace {
    const main = this.mainPath ?? c.hookTranscriptPath;
    if (c.agentId !== undefined) {
      const own = this.agentPaths.get(c.agentId);
      if (own !== undefined) return { path: own, line: this.disk.lastLineOf(own) ?? 0 };
      return main === undefined ? {} : { path: subagentTranscriptPath(main, c.agentId) };
    }
    if (main === undefined) return { line: this.disk.lastLine };
    return { path: main, line: this.disk.lastLineOf(main) ?? this.disk.lastLine };
  }

  /** Held events for calls still held, e.g. after catching up on history at start. */
  heldEvents(): EngineEvent[] {
    return this.snapshot().held.map((h) => heldEventOf(h, h.transcript_path ?? this.transcriptPath));
  }
}

function ageKey(c: CallFacts): number {
  return Math.max(c.written?.observedAt ?? 0, c.result?.observedAt ?? 0, c.firedAt ?? 0, c.postAt ?? 0);
}
