import type { EngineEvent, HeldEvent } from '../engineEvents';
import type { CallSnapshot } from '../snapshot';
import { NO_PER_CALL } from '../records';
import type { ChannelTransport } from '../../rules/channelConstants';
import { type CallFacts, type VerdictFacts, type WrittenObservation, callVerdict, compareObservations, heldNow, primaryWait, verdictKey } from './callFacts';
import type { SessionFacts } from './sessionFacts';
import type { HeldPlace } from './heldPlace';

/** Written calls, newest first (by when their record was observed). */
export function sortedRecent(calls: Iterable<CallFacts>): CallFacts[] {
  const written: CallFacts[] = [];
  for (const c of calls) if (c.written) written.push(c);
  return written.sort((a, b) => compareObservations(b.written as WrittenObservation, a.written as WrittenObservation));
}

/** A held call's snapshot (`held`: where its record will land) or a written one's: the session snapshots no other calls. */
export function callSnapshot(sessionId: string, c: CallFacts, held: HeldPlace = {}): CallSnapshot {
  const w = c.written;
  const wait = primaryWait(c);
  const snap: CallSnapshot = {
    tool_use_id: c.id,
    session_id: sessionId,
    state: heldNow(c) ? 'held' : c.result ? 'result' : 'written',
  };
  if (c.toolName !== undefined) snap.tool_name = c.toolName;
  if (c.agentId !== undefined) snap.agent_id = c.agentId;
  if (c.firedAt !== undefined) snap.fired_at = c.firedAt;
  if (c.firedAt !== undefined && c.transport !== undefined) snap.transport = c.transport;
  if (c.timeoutMs !== undefined) snap.timeout_ms = c.timeoutMs;
  if (w) {
    snap.line = w.line;
    snap.record = w.perCall ?? NO_PER_CALL;
    snap.generation = w.generation;
    snap.observed_at = w.observedAt;
    snap.record_at = w.recordAt;
    const verdict = callVerdict(c);
    snap.lag_ms = verdict?.lag ?? null;
    if (verdict) {
      snap.shape = verdict.shape;
      if (verdict.held && verdict.lag === null) snap.lag_bounds = verdict.held;
      if (verdict.readBack) {
        snap.read_back = true;
        // On disk when the kept read found it: the history read that found it again here is no landing.
        if (c.measuredRead !== undefined) snap.observed_at = c.measuredRead.at;
      }
    }
    snap.with_result = snap.shape === 'with_result';
  }
  const path = w ? w.path : (held.path ?? c.hookTranscriptPath);
  if (path !== undefined) snap.transcript_path = path;
  if (!w && held.line !== undefined) snap.held_line = held.line;
  if (c.hookMode !== undefined) snap.hook_mode = c.hookMode;
  if (c.copiedFrom !== undefined) snap.copied_from = c.copiedFrom;
  if (w && c.result) snap.result_line = c.result.line;
  if (wait) snap.wait = { outcome: wait.outcome, polls: wait.polls, waited_ms: wait.waitedMs, ...(wait.source ? { source: wait.source } : {}) };
  if (c.postAt !== undefined) snap.post_at = c.postAt;
  if (c.seen?.hooks !== undefined) snap.hooks = c.seen.hooks;
  if (c.hookRuns !== undefined) snap.hook_runs = c.hookRuns.slice();
  return snap;
}

/** What a call event is about. */
export interface EventSubject {
  tool_use_id: string;
  tool_name?: string;
  transcript_path: string;
  agent_id?: string;
}

export function callEventBase(sessionId: string, ev: EventSubject) {
  return {
    session_id: sessionId,
    tool_use_id: ev.tool_use_id,
    ...(ev.tool_name !== undefined ? { tool_name: ev.tool_name } : {}),
    transcript_path: ev.transcript_path,
    ...(ev.agent_id !== undefined ? { agent_id: ev.agent_id } : {}),
  };
}

/**
 * A call event: callEventBase's fields, then `fields`, in that order, as
 * `{ ...callEventBase(...), ...fields }` would give them. Added to the base
 * rather than spread: in V8 an object literal that starts with a spread and
 * goes on with more fields gets a hidden class of its own, allocated in old
 * space, so every event of a hook flood left garbage there for the next full
 * collection (issue 30: watch's RSS over 150 MB).
 */
export function callEvent<const F extends object>(sessionId: string, ev: EventSubject, fields: F): ReturnType<typeof callEventBase> & F {
  return Object.assign(callEventBase(sessionId, ev), fields);
}

/**
 * Counts a written call's verdict (callVerdict) in the session's facts and, once its `written` has
 * been said (`told`: the verdict it said), says it again when it changed: `joined` for an exact lag
 * (a fire time learned late, or a better one), `revised` for the looks' bound (a look of its hooks
 * had found the record before the engine's read). Returns what its events now say; a call indexed as
 * history is counted, never said.
 */
export function retellVerdict(
  sessionId: string,
  subject: EventSubject,
  call: VerdictFacts & { transport?: ChannelTransport; told?: string },
  observedAt: number,
  facts: SessionFacts,
  out: EngineEvent[],
): string | undefined {
  const verdict = callVerdict(call);
  if (verdict === undefined) return call.told;
  facts.countVerdict(subject.tool_use_id, verdict);
  const key = verdictKey(verdict);
  if (call.told === undefined || key === call.told) return call.told;
  if (verdict.lag !== null) {
    out.push(callEvent(sessionId, subject, { event: 'joined', at: observedAt, fired_at: call.firedAt as number, lag_ms: verdict.lag, transport: call.transport ?? 'command' }));
  } else {
    out.push(callEvent(sessionId, subject, { event: 'revised', at: observedAt, fired_at: call.firedAt ?? null, lag_bounds: verdict.held ?? null, shape: verdict.shape }));
  }
  return key;
}

export function heldEventOf(h: CallSnapshot, transcriptPath: string): HeldEvent {
  return callEvent(
    h.session_id,
    { tool_use_id: h.tool_use_id, tool_name: h.tool_name, transcript_path: transcriptPath, agent_id: h.agent_id },
    {
      event: 'held',
      at: h.fired_at as number,
      ...(h.transport !== undefined ? { transport: h.transport } : {}),
      ...(h.timeout_ms !== undefined ? { timeout_ms: h.timeout_ms } : {}),
    },
  );
}
