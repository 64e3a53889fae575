// Builders for correlator inputs: hook events and TailReads, as the channel reader and the tail produce them.
import type { PostEvent, PreEvent, WaitEvent } from '../../../src/core/channel/schema';
import type { ScanResult, ScannedRecord } from '../../../src/core/records';
import type { TailRead } from '../../../src/core/tailTypes';

export const SESSION = 'sess-1';
export const TRANSCRIPT = '/claude/projects/-w/sess-1.jsonl';

export function pre(id: string, at: number, extra: Partial<PreEvent> = {}): PreEvent {
  return { v: 1, event: 'pre', at, session_id: SESSION, transcript_path: TRANSCRIPT, tool_use_id: id, tool_name: 'Bash', ...extra };
}

export function post(id: string, at: number): PostEvent {
  return { v: 1, event: 'post', at, session_id: SESSION, transcript_path: TRANSCRIPT, tool_use_id: id };
}

export function wait(id: string, at: number, outcome: 'seen' | 'behind', extra: Partial<WaitEvent> = {}): WaitEvent {
  return {
    v: 1,
    event: 'wait',
    at,
    session_id: SESSION,
    transcript_path: TRANSCRIPT,
    tool_use_id: id,
    outcome,
    polls: outcome === 'seen' ? 3 : 50,
    waited_ms: outcome === 'seen' ? 300 : 5000,
    bytes_on_disk: 1000,
    source: 'transcript-lag-hook',
    ...extra,
  };
}

export function toolUse(id: string, extra: Partial<ScannedRecord> = {}): ScanResult {
  return { kind: 'record', type: 'assistant', timestamp: '2026-01-01T00:00:00.000Z', toolUses: [{ id, name: 'Bash' }], toolResults: [], isMetadata: false, ...extra };
}

export function toolResult(id: string): ScanResult {
  return { kind: 'record', type: 'user', toolUses: [], toolResults: [id], isMetadata: false };
}

export function plain(extra: Partial<ScannedRecord> = {}): ScanResult {
  return { kind: 'record', type: 'user', toolUses: [], toolResults: [], isMetadata: false, ...extra };
}

export const malformed: ScanResult = { kind: 'malformed', reason: 'not JSON' };

/** A TailRead of `scans` as lines firstLine.. of generation `generation`, observed at `observedAt`. */
export function tailRead(observedAt: number, firstLine: number, scans: ScanResult[], generation = 1): TailRead<ScanResult> {
  const lines = scans.map((scan, i) => ({ line: firstLine + i, byteStart: (firstLine + i - 1) * 100, byteEnd: (firstLine + i) * 100, scan, partialDwellMs: 0 }));
  return {
    batch: {
      observedAt,
      generation,
      firstLine,
      lastLine: firstLine + scans.length - 1,
      byteStart: (firstLine - 1) * 100,
      byteEnd: (firstLine + scans.length - 1) * 100,
    },
    lines,
    changes: [],
  };
}
