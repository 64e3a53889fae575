import type { ChannelEvent, MeasuredEvent } from '../channel/schema';
import type { EngineEvent } from '../engineEvents';
import type { SessionSnapshot } from '../snapshot';
import { SessionState, type TranscriptInput } from './sessionState';
import type { SessionLimits } from './sessionLimits';

export type { TranscriptInput } from './sessionState';

export interface CorrelatorOptions {
  /** Recent written calls kept per session (the ring views show). Default 20. */
  recentCalls?: number;
  /** Finished calls remembered per session so replays never count twice (lag percentiles cover as many, plus maxLiveCalls). Default 5 000. */
  rememberedCalls?: number;
  /** Calls kept in full per session, whatever their state. Default 2 000. */
  maxLiveCalls?: number;
  /** Calls fired and not written kept per session; past it the one fired first is dropped. Default 500. */
  maxHeldCalls?: number;
  /** Write batches kept per session for the timeline. Default 200. */
  batchesKept?: number;
  /** Collect this engine's live reads of records to keep in the channel (takeMeasured): only for an engine that appends them. */
  keepMeasured?: boolean;
}

/**
 * Joins hook events and transcript records per session on tool_use_id. Pure:
 * events in, EngineEvents out, each input carrying its own time. Facts merge
 * order-independently (see correlator/callFacts.ts), so the snapshots after a
 * set of inputs are the same whatever order they came in; the events emitted
 * along the way describe what was new at each step (`joined` when a hook event
 * arrives after its record, `held` only before `written`).
 */
/** The engine's reads to keep waiting for the engine to append them: bounded, should nobody take them. */
const MAX_MEASURED_WAITING = 10_000;

export class Correlator {
  private readonly sessionsById = new Map<string, SessionState>();
  private limits: SessionLimits;
  /** This engine's live reads of records, to be kept in the channel (./measured.ts), until takeMeasured(). */
  private measuredWaiting: MeasuredEvent[] = [];
  private readonly outbox = {
    push: (ev: MeasuredEvent) => {
      if (this.measuredWaiting.length >= MAX_MEASURED_WAITING) this.measuredWaiting.shift();
      this.measuredWaiting.push(ev);
    },
  };

  private readonly keepMeasured: boolean;

  constructor(opts: CorrelatorOptions = {}) {
    this.keepMeasured = opts.keepMeasured === true;
    this.limits = {
      recentCalls: opts.recentCalls ?? 20,
      rememberedCalls: opts.rememberedCalls ?? 5_000,
      maxLiveCalls: Math.max(opts.maxLiveCalls ?? 2_000, (opts.recentCalls ?? 20) * 2),
      maxHeldCalls: Math.max(1, opts.maxHeldCalls ?? 500),
      batchesKept: opts.batchesKept ?? 200,
    };
  }

  setRecentCalls(n: number): void {
    this.limits = { ...this.limits, recentCalls: n, maxLiveCalls: Math.max(this.limits.maxLiveCalls, n * 2) };
    for (const s of this.sessionsById.values()) s.setLimits(this.limits);
  }

  private session(id: string): SessionState {
    let s = this.sessionsById.get(id);
    if (!s) {
      s = new SessionState(id, this.limits, this.keepMeasured ? this.outbox : undefined);
      this.sessionsById.set(id, s);
    }
    return s;
  }

  /** A hook event read from the channel at `observedAt` (clock time of the read). */
  ingestHook(ev: ChannelEvent, observedAt: number): EngineEvent[] {
    const s = this.session(ev.session_id);
    const out: EngineEvent[] = [];
    if (ev.event === 'pre') s.ingestPre(ev, observedAt, out);
    else if (ev.event === 'wait') s.ingestWait(ev, observedAt, out);
    else if (ev.event === 'landed') s.ingestLanded(ev, observedAt, out);
    else if (ev.event === 'hooks') s.ingestHooks(ev, observedAt, out);
    else if (ev.event === 'hook_run') s.ingestHookRun(ev, observedAt, out);
    else if (ev.event === 'record') s.ingestRecordBirth(ev, observedAt);
    else if (ev.event === 'measured') s.ingestMeasured(ev, observedAt, out);
    else s.ingestPost(ev, observedAt, out);
    s.pruneIfOverfull(out);
    return this.withSessionEvent(s, observedAt, out);
  }

  /** One TailRead of a transcript, whole: record and result in the same read share a batch. */
  ingestTranscript(input: TranscriptInput): EngineEvent[] {
    const s = this.session(input.sessionId);
    const out: EngineEvent[] = [];
    s.ingestTranscript(input, out);
    if (!input.read.batch && input.read.changes.length === 0) return out;
    const at = input.read.batch?.observedAt ?? input.read.changes[input.read.changes.length - 1].at;
    return this.withSessionEvent(s, at, out);
  }

  private withSessionEvent(s: SessionState, at: number, out: EngineEvent[]): EngineEvent[] {
    const ev = s.sessionEventIfChanged(at);
    if (ev) out.push(ev);
    return out;
  }

  /** This engine's live reads to keep in the channel since the last call (./measured.ts), oldest first. */
  takeMeasured(): MeasuredEvent[] {
    if (this.measuredWaiting.length === 0) return [];
    const taken = this.measuredWaiting;
    this.measuredWaiting = [];
    return taken;
  }

  has(sessionId: string): boolean {
    return this.sessionsById.has(sessionId);
  }

  snapshot(sessionId: string): SessionSnapshot | undefined {
    return this.sessionsById.get(sessionId)?.snapshot();
  }

  /** Every session, most recent activity first. */
  snapshots(): SessionSnapshot[] {
    return [...this.sessionsById.values()]
      .sort((a, b) => b.lastActivityAt - a.lastActivityAt || (a.sessionId < b.sessionId ? -1 : 1))
      .map((s) => s.snapshot());
  }

  sessionIds(): string[] {
    return [...this.sessionsById.keys()];
  }

  lastActivityAt(sessionId: string): number | undefined {
    return this.sessionsById.get(sessionId)?.lastActivityAt;
  }

  cwdOf(sessionId: string): string | undefined {
    return this.sessionsById.get(sessionId)?.cwdValue;
  }

  /** A session event now, whether or not anything changed (a session starts being shown). */
  sessionEvent(sessionId: string, at: number): EngineEvent | undefined {
    const s = this.sessionsById.get(sessionId);
    if (!s) return undefined;
    s.lastEmitted = '';
    return s.sessionEventIfChanged(at);
  }

  get maxHeldCalls(): number {
    return this.limits.maxHeldCalls;
  }

  /** Held calls of the session dropped past maxHeldCalls (pre events for ids never written). */
  heldCallsDropped(sessionId: string): number {
    return this.sessionsById.get(sessionId)?.heldDropped ?? 0;
  }

  /** Calls the session keeps in full: what each of its later events costs is proportional to it. */
  callsKept(sessionId: string): number {
    return this.sessionsById.get(sessionId)?.calls.size ?? 0;
  }

  heldEvents(sessionId: string): EngineEvent[] {
    return this.sessionsById.get(sessionId)?.heldEvents() ?? [];
  }

  /** Drops sessions with no activity since `now - idleMs`; returns their ids. */
  evictIdle(now: number, idleMs: number): string[] {
    const evicted: string[] = [];
    for (const [id, s] of this.sessionsById) {
      if (now - s.lastActivityAt > idleMs) {
        this.sessionsById.delete(id);
        evicted.push(id);
      }
    }
    return evicted;
  }

  drop(sessionId: string): void {
    this.sessionsById.delete(sessionId);
  }
}
