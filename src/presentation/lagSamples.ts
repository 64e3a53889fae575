import type { EngineEvent } from '../core/engineEvents';
import type { HooksDecision } from '../rules/channelConstants';
import { type CallSnapshot, type HookRunSnapshot, type SessionSnapshot, shownAsHeld } from '../core/snapshot';
import { hookRunOf, withHookRun } from '../rules/hookRun';
import type { WriteShape } from './format';
import type { CallShape } from '../core/callShape';

/**
 * One call as the report and the export show it. The engine's snapshots keep
 * only the most recent calls; this store keeps every call seen since the
 * extension started (bounded per session), built from the engine's events and,
 * for calls from before activation that no event carries, from its snapshots (absorb).
 */
export interface LagSample {
  session_id: string;
  tool_use_id: string;
  tool_name: string | null;
  agent_id: string | null;
  transcript_path: string;
  generation: number | null;
  /** 1-based line of the record; null while held. */
  line: number | null;
  /** The record's own timestamp (creation time). */
  record_at: number | null;
  /** PreToolUse fired. */
  fired_at: number | null;
  /** The record was observed on disk. */
  observed_at: number | null;
  lag_ms: number | null;
  /** With `lag_ms` null: the hold the looks of the call's own hooks prove, at least / at most (null: unbounded or not known). */
  lag_min_ms: number | null;
  lag_max_ms: number | null;
  shape: WriteShape | null;
  result_line: number | null;
  wait_outcome: 'seen' | 'behind' | 'error' | null;
  wait_polls: number | null;
  wait_ms: number | null;
  /** Its settings PreToolUse hooks' time and decision, as the mod timed them; null without the mod. */
  hooks_ms: number | null;
  hooks_decision: HooksDecision | null;
  /**
   * Its wrapped hooks' runs (`transcript-lag complete`'s hook_run), by start, for the report's row per
   * hook; [] without them. Not an export column (SAMPLE_FIELDS): a list, not a cell.
   */
  hook_runs: readonly HookRunSnapshot[];
}

export const SAMPLE_FIELDS: readonly (keyof LagSample)[] = [
  'session_id', 'tool_use_id', 'tool_name', 'agent_id', 'transcript_path', 'generation', 'line', 'record_at',
  'fired_at', 'observed_at', 'lag_ms', 'shape', 'result_line', 'wait_outcome', 'wait_polls', 'wait_ms', 'hooks_ms', 'hooks_decision',
  // Last, so a spreadsheet that reads the columns by position reads the earlier ones as before.
  'lag_min_ms', 'lag_max_ms',
];

function blank(e: { session_id: string; tool_use_id: string; transcript_path: string }): LagSample {
  return {
    session_id: e.session_id, tool_use_id: e.tool_use_id, tool_name: null, agent_id: null,
    transcript_path: e.transcript_path, generation: null, line: null, record_at: null, fired_at: null,
    observed_at: null, lag_ms: null, lag_min_ms: null, lag_max_ms: null, shape: null, result_line: null, wait_outcome: null, wait_polls: null, wait_ms: null,
    hooks_ms: null, hooks_decision: null, hook_runs: [],
  };
}

function fromCall(c: CallSnapshot): Partial<LagSample> {
  return {
    tool_name: c.tool_name ?? null,
    agent_id: c.agent_id ?? null,
    generation: c.generation ?? null,
    line: shownAsHeld(c) ? null : (c.line ?? null),
    record_at: c.record_at ?? null,
    fired_at: c.fired_at ?? null,
    observed_at: c.observed_at ?? null,
    lag_ms: c.lag_ms ?? null,
    lag_min_ms: c.lag_bounds?.min_ms ?? null,
    lag_max_ms: c.lag_bounds?.max_ms ?? null,
    // Only the snapshot's shape is evidence; `with_result` false may mean "not known" (history).
    shape: provenShape(c.shape),
    result_line: c.result_line ?? null,
    wait_outcome: c.wait?.outcome ?? null,
    wait_polls: c.wait?.polls ?? null,
    wait_ms: c.wait?.waited_ms ?? null,
    hooks_ms: c.hooks?.ms ?? null,
    hooks_decision: c.hooks?.decision ?? null,
    hook_runs: c.hook_runs ?? [],
  };
}

/** A shape evidence proves, else null (`unknown`, or none said). */
function provenShape(shape: CallShape | undefined): WriteShape | null {
  return shape === 'with_result' || shape === 'before_result' ? shape : null;
}

/** A call's lag as its events say it: an exact figure, or the looks' bound (then lag_ms is null). */
function setLag(s: LagSample, lagMs: number | null, bounds: { min_ms: number; max_ms: number | null } | null | undefined): void {
  s.lag_ms = lagMs;
  s.lag_min_ms = lagMs === null ? (bounds?.min_ms ?? null) : null;
  s.lag_max_ms = lagMs === null ? (bounds?.max_ms ?? null) : null;
}

/** When a call happened, for ordering: on disk, else hook fired. */
export function sampleTime(s: LagSample): number {
  return s.observed_at ?? s.fired_at ?? 0;
}

export class LagSampleStore {
  private readonly bySession = new Map<string, Map<string, LagSample>>();

  /** Bounded both ways so a window left open for weeks keeps a bounded memory. */
  constructor(
    private readonly maxPerSession = 5000,
    private readonly maxSessions = 50,
  ) {}

  /** Folds one engine event in; returns true when a sample changed. */
  add(e: EngineEvent): boolean {
    if (e.event === 'tail' || e.event === 'session' || e.event === 'post' || e.event === 'partial' || e.event === 'record') return false;
    // A revision of a call this store no longer holds (evicted, or buried long ago) makes no row of its own.
    if (e.event === 'revised' && !this.bySession.get(e.session_id)?.has(e.tool_use_id)) return false;
    const s = this.sampleFor(e);
    if (e.tool_name && !s.tool_name) s.tool_name = e.tool_name;
    if (e.agent_id && !s.agent_id) s.agent_id = e.agent_id;
    switch (e.event) {
      case 'held':
        s.fired_at ??= e.at;
        break;
      case 'written':
        // The first record of an id wins: a replayed or duplicated record must not move the call.
        if (s.line === null) {
          // The file the record is in: a subagent call's held event may have named the main transcript.
          s.transcript_path = e.transcript_path;
          s.line = e.line;
          s.generation = e.generation;
          s.observed_at = e.at;
          s.record_at = e.record_at;
        }
        if (e.fired_at !== null) s.fired_at = e.fired_at;
        if (e.lag_ms !== null || e.lag_bounds !== undefined) setLag(s, e.lag_ms, e.lag_bounds);
        s.shape = provenShape(e.shape);
        if (e.hooks_ms !== undefined) {
          s.hooks_ms = e.hooks_ms;
          s.hooks_decision = e.hooks_decision ?? null;
        }
        break;
      case 'hooks':
        s.hooks_ms = e.hooks_ms;
        s.hooks_decision = e.hooks_decision ?? null;
        break;
      case 'hook_run':
        // A new list each change: samples() hands out shallow copies.
        s.hook_runs = withHookRun(s.hook_runs, hookRunOf(e)) ?? s.hook_runs;
        break;
      case 'joined':
        s.fired_at = e.fired_at;
        setLag(s, e.lag_ms, null);
        break;
      case 'revised':
        if (e.fired_at !== null) s.fired_at = e.fired_at;
        setLag(s, null, e.lag_bounds);
        s.shape = provenShape(e.shape);
        break;
      case 'result':
        s.result_line ??= e.line;
        // The shape is its `written`'s (or a revision's): a result read with the record was said there.
        break;
      case 'wait':
        s.wait_outcome = e.outcome;
        s.wait_polls = e.polls;
        s.wait_ms = e.waited_ms;
        break;
    }
    return true;
  }

  /**
   * Adds the calls of a snapshot this store has not seen: the engine does not
   * replay its first read as events, so calls from before activation (and the
   * held calls a session opened with) only reach the report this way.
   */
  absorb(session: SessionSnapshot): void {
    const known = this.bySession.get(session.session_id);
    // Oldest first, so insertion order stays chronological: recent is newest first, held oldest first.
    for (const call of [...session.recent].reverse().concat(session.held)) {
      if (known?.has(call.tool_use_id)) continue;
      const transcriptPath = call.transcript_path ?? session.transcript_path;
      Object.assign(this.sampleFor({ ...call, transcript_path: transcriptPath }), fromCall(call), { transcript_path: transcriptPath });
    }
  }

  private sampleFor(e: { session_id: string; tool_use_id: string; transcript_path: string }): LagSample {
    let calls = this.bySession.get(e.session_id);
    if (!calls) {
      calls = new Map();
      this.bySession.set(e.session_id, calls);
      if (this.bySession.size > this.maxSessions) this.bySession.delete(this.bySession.keys().next().value as string);
    }
    let s = calls.get(e.tool_use_id);
    if (!s) {
      s = blank(e);
      calls.set(e.tool_use_id, s);
      // Maps iterate in insertion order: the first key is the oldest call.
      if (calls.size > this.maxPerSession) calls.delete(calls.keys().next().value as string);
    }
    return s;
  }

  /** Calls of one session (or all), oldest first (on disk, else hook fired; ties in arrival order). Copies. */
  samples(sessionId?: string): LagSample[] {
    const lists = sessionId === undefined ? [...this.bySession.values()] : [this.bySession.get(sessionId) ?? new Map()];
    return lists.flatMap((calls) => [...calls.values()].map((s) => ({ ...s }))).sort((a, b) => sampleTime(a) - sampleTime(b));
  }

  sessionIds(): string[] {
    return [...this.bySession.keys()];
  }

  clear(): void {
    this.bySession.clear();
  }
}
