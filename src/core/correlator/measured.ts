import type { MeasuredEvent } from '../channel/schema';
import { CHANNEL_SCHEMA_VERSION, ENGINE_SOURCE } from '../../rules/channelConstants';
import { channelEventHead } from '../../rules/channelEvent';
import type { CallFacts, MeasuredFact } from './callFacts';

/**
 * What an engine measured, kept in the session's channel file and read back (docs/CHANNEL.md, "What
 * an engine measured"). A lag is measured only by a live read: the engine read the record as it
 * landed, having read the file without it before. A reload, or a window opened later, finds the
 * record already on disk and can measure nothing, so the engine that read it live appends a
 * `measured` event (when the read was, whether it brought the result, which record it was), and a
 * later engine reads it with the channel's history and gives the call that read as its first
 * sighting: the same lag and shape, by the same rule (callVerdict), marked as read back.
 *
 * A kept read is trusted only for the record it names: the same file, the record on the same line
 * ending at the same byte. A transcript truncated or rewritten since holds another record there (or
 * none), and the measurement is dropped. Two engines may both keep a read of one call (two windows
 * on one session, each reading before the other's line came): every reader takes the earliest,
 * whatever order the lines are in, so they never disagree.
 */

/** Kept reads remembered per call: two engines racing, and a record rewritten elsewhere since; more is a flood. */
const MAX_MEASURED_PER_CALL = 4;

/** Folds a `measured` event into the call's kept reads: the earliest few, one of each. */
export function noteMeasured(c: CallFacts, ev: MeasuredEvent): void {
  const fact: MeasuredFact = {
    at: ev.at,
    withResult: ev.shape === 'with_result',
    ...(ev.fired_at !== undefined ? { firedAt: ev.fired_at } : {}),
    path: ev.record_path ?? ev.transcript_path,
    line: ev.line,
    byteEnd: ev.byte_end,
  };
  const list = (c.measured ??= []);
  if (list.some((m) => sameFact(m, fact))) return;
  list.push(fact);
  list.sort(compareFacts);
  if (list.length > MAX_MEASURED_PER_CALL) list.length = MAX_MEASURED_PER_CALL;
}

/**
 * The kept read of the record as read now (`c.written`): the earliest whose file, line and end
 * match it; none while the record is unread or no kept read is of it.
 */
export function resolveMeasured(c: CallFacts): void {
  const w = c.written;
  const m = w === undefined ? undefined : c.measured?.find((f) => f.path === w.path && f.line === w.line && f.byteEnd === w.byteEnd);
  if (m === undefined) delete c.measuredRead;
  else c.measuredRead = { at: m.at, withResult: m.withResult, ...(m.firedAt !== undefined ? { firedAt: m.firedAt } : {}) };
}

/**
 * The `measured` event to keep for the call, when this engine's own live read of its record is one
 * to keep: the record's first live read (not one kept already at or before it), of a call a hook
 * reported (a session no hook reports gets no channel file from us). Marks the call so it is kept once.
 */
export function measuredToKeep(sessionId: string, mainPath: string, c: CallFacts): MeasuredEvent | undefined {
  const w = c.written;
  if (c.measuredKept || w === undefined || w.historical || c.copiedFrom !== undefined) return undefined;
  if (c.firedAt === undefined && c.seen === undefined) return undefined;
  // Kept already, by this engine (its own line read back) or by another that read it first.
  if (c.measuredRead !== undefined && c.measuredRead.at <= w.observedAt) {
    c.measuredKept = true;
    return undefined;
  }
  // Named by the session's transcript, as hook events are; a subagent's record by its own file beside it.
  if (mainPath === '') return undefined;
  c.measuredKept = true;
  const at = Math.round(w.observedAt);
  const ev: MeasuredEvent = {
    ...channelEventHead('measured', at, sessionId, mainPath),
    v: CHANNEL_SCHEMA_VERSION,
    tool_use_id: c.id,
    ...(c.toolName !== undefined ? { tool_name: c.toolName } : {}),
    ...(c.agentId !== undefined ? { agent_id: c.agentId } : {}),
    source: ENGINE_SOURCE,
    ...(c.firedAt !== undefined ? { fired_at: Math.round(c.firedAt), transport: c.transport ?? 'command', lag_ms: Math.max(0, at - Math.round(c.firedAt)) } : {}),
    shape: w.withResult ? 'with_result' : 'before_result',
    line: w.line,
    byte_end: w.byteEnd,
    ...(w.path !== mainPath ? { record_path: w.path } : {}),
  };
  return ev;
}

function sameFact(a: MeasuredFact, b: MeasuredFact): boolean {
  return a.at === b.at && a.withResult === b.withResult && a.firedAt === b.firedAt && a.path === b.path && a.line === b.line && a.byteEnd === b.byteEnd;
}

/** The earliest read first; ties by a total order, so the list does not depend on arrival order. */
function compareFacts(a: MeasuredFact, b: MeasuredFact): number {
  if (a.at !== b.at) return a.at - b.at;
  const ka = JSON.stringify([a.path, a.line, a.byteEnd, a.withResult, a.firedAt ?? -1]);
  const kb = JSON.stringify([b.path, b.line, b.byteEnd, b.withResult, b.firedAt ?? -1]);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
