/**
 * A session's calls as its channel file's last lines tell them (the status line's only reading of the
 * channel): each call's fire, first transcript and subagent, and what its hooks saw, folded as the
 * engine folds them (src/rules/hookEvidence.ts, src/rules/fireTime.ts). node: modules and src/rules/
 * only: the status line starts on every refresh.
 */
import { type FireReport, isBetterFire } from '../rules/fireTime';
import { type LenientCallEvent, lenientCallEvent } from '../rules/channelLineHead';
import { type CallSightings, noteSighting } from '../rules/hookEvidence';
import { readBounded } from '../rules/boundedRead';

export interface CallEvents {
  id: string;
  /** The pre that gives the call's fire time: the mod's when it reported the call, else the earliest (../rules/fireTime.ts). */
  pre: LenientCallEvent;
  /** The transcript and subagent the call's first pre named. */
  transcriptPath: string;
  agentId?: string;
  /** What its own hooks saw on disk, folded as the engine folds it (../rules/hookEvidence.ts). */
  seen: CallSightings;
}

/** The last `maxBytes` of a regular file, from its first complete line; undefined when it cannot be read. */
export function readTail(path: string, maxBytes: number): string | undefined {
  const read = readBounded(path, maxBytes, 'end');
  if (!read) return undefined;
  const text = read.bytes.toString('utf8');
  return read.start === 0 ? text : text.slice(text.indexOf('\n') + 1);
}

/** How a pre line reached the channel, for choosing among several reports of one call. */
function fireOf(e: LenientCallEvent): FireReport {
  return { at: e.at, transport: e.transport ?? 'command' };
}

/**
 * Each call's fire, first transcript and subagent, and what its hooks saw, in the order their first
 * pre events came. Lines are read as the engine's reader reads them (../rules/channelLineHead.ts):
 * a line the engine drops is dropped here.
 */
export function channelCalls(channelText: string): CallEvents[] {
  const calls = new Map<string, CallEvents>();
  const later: LenientCallEvent[] = [];
  for (const line of channelText.split('\n')) {
    const e = lenientCallEvent(line);
    if (!e) continue;
    if (e.event !== 'pre') {
      later.push(e);
      continue;
    }
    let call = calls.get(e.tool_use_id);
    if (!call) calls.set(e.tool_use_id, (call = { id: e.tool_use_id, pre: e, transcriptPath: e.transcript_path, seen: {} }));
    else if (isBetterFire(fireOf(call.pre), fireOf(e))) call.pre = e;
    call.agentId ??= e.agent_id;
    noteSighting(call.seen, e as LenientCallEvent & { event: 'pre' });
  }
  for (const e of later) {
    const call = calls.get(e.tool_use_id);
    if (!call) continue;
    // No copy per event: lenientCallEvent requires a landed event's with_result, a boolean, and a wait's outcome.
    noteSighting(call.seen, e as LenientCallEvent & ({ event: 'post' | 'hooks' } | { event: 'landed'; with_result: boolean } | { event: 'wait'; outcome: 'seen' | 'behind' | 'error' }));
  }
  return [...calls.values()];
}

