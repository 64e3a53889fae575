import type { SessionStats } from '../../../src/core/sessionStats';
import type { CallSnapshot, SessionSnapshot } from '../../../src/core/snapshot';

/** Builders for the snapshots the engine hands its views: the input of the presentation layer. */
export function stats(over: Partial<SessionStats> = {}): SessionStats {
  return {
    waits_seen: 0, waits_behind: 0, held_now: 0, calls_written: 0, lag_p50_ms: null, lag_p95_ms: null,
    lag_max_ms: null, shape_before_result: 0, shape_with_result: 0, shape_unknown: 0, malformed_lines: 0, ...over,
  };
}

export function heldCall(id: string, firedAt: number, over: Partial<CallSnapshot> = {}): CallSnapshot {
  return { tool_use_id: id, tool_name: 'Bash', session_id: 's1', fired_at: firedAt, state: 'held', ...over };
}

export function writtenCall(id: string, line: number, observedAt: number, over: Partial<CallSnapshot> = {}): CallSnapshot {
  return {
    tool_use_id: id, tool_name: 'Read', session_id: 's1', state: 'written', line, generation: 0,
    observed_at: observedAt, record_at: observedAt - 5, fired_at: observedAt - 300, lag_ms: 300, with_result: false, ...over,
  };
}

export function session(over: Partial<SessionSnapshot> = {}): SessionSnapshot {
  return {
    session_id: 's1', transcript_path: '/tmp/claude/projects/-w/s1.jsonl', title: 'Fix the parser', held: [], recent: [],
    stats: stats(), last_line: 40, bytes_on_disk: 12_000, last_activity_at: 0, batches: [], ...over,
  };
}
