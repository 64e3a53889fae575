/**
 * The status line's calls of a session: its channel's calls (./channelCalls.ts) and, for a call no
 * hook saw written, one bounded lookup of the transcript's last window (src/rules/onDiskCheck.ts),
 * judged by the views' rules (src/rules/hookEvidence.ts: held, a lag's bounds).
 */
import { join } from 'node:path';
import { CHANNEL_FILE_SUFFIX, SAFE_SESSION_ID } from '../rules/channelConstants';
import { type HeldBounds, type HooksTimed, hookSawRecord, isHeld, verdictFromHook } from '../rules/hookEvidence';
import { callInWindow, ON_DISK_WINDOW_BYTES, readWindow, recordFileOf, type TranscriptWindow } from '../rules/onDiskCheck';
import { channelCalls, readTail } from './channelCalls';

/** The channel file's last bytes read: about 200 events (pre and post of 100 calls), more than a turn has held at once. */
export const CHANNEL_TAIL_BYTES = 64 * 1024;
/** Calls looked up in the transcript per refresh at most, newest first (each is one bounded read). */
export const MAX_CALLS_CHECKED = 16;

/** Whether the call's tool_use record is in the window: true, false, or undefined when the window cannot tell. */
export function recordIn(w: TranscriptWindow, toolUseId: string): boolean | undefined {
  return callInWindow(w, toolUseId).record !== undefined ? true : w.whole ? false : undefined;
}

/** One call as the status line sees it: the engine's facts, from the channel and a bounded transcript lookup. */
export interface StatuslineCall {
  id: string;
  firedAt: number;
  /** True: on disk (a hook saw it, or the lookup found it); false: the lookup proved it absent; undefined: not known. */
  recordOnDisk?: boolean;
  /** Held by the one rule (../rules/hookEvidence.ts `isHeld`). */
  held: boolean;
  /** Written calls: the hold as their hooks' evidence proves it (`verdictFromHook`), as the views show a call indexed as history. */
  bounds?: HeldBounds;
  /** Its settings PreToolUse hooks as the mod timed them, once they settled. */
  hooks?: HooksTimed;
}

/**
 * The session's calls from its channel file and, for calls the hook did not see written, its
 * transcript (or a subagent's), newest fire first. Only the transcript Claude Code named on stdin
 * is read: a channel line naming another file is not followed.
 */
export function sessionCalls(channelDir: string, sessionId: string, transcriptPath?: string): StatuslineCall[] | undefined {
  if (!SAFE_SESSION_ID.test(sessionId)) return undefined;
  const text = readTail(join(channelDir, sessionId + CHANNEL_FILE_SUFFIX), CHANNEL_TAIL_BYTES);
  if (text === undefined) return undefined;
  let checked = 0;
  const tails = new Map<string, TranscriptWindow | undefined>();
  const out: StatuslineCall[] = [];
  // Newest first: held calls are among the newest, and the budget of lookups goes to them.
  for (const call of channelCalls(text).sort((a, b) => b.pre.at - a.pre.at)) {
    const firedAt = call.pre.at;
    let recordOnDisk: boolean | undefined = hookSawRecord(call.seen) ? true : undefined;
    if (recordOnDisk === undefined && checked < MAX_CALLS_CHECKED && transcriptPath !== undefined && call.transcriptPath === transcriptPath) {
      checked++;
      const recordPath = recordFileOf(transcriptPath, sessionId, call.agentId);
      if (recordPath !== undefined) {
        if (!tails.has(recordPath)) tails.set(recordPath, readWindow(recordPath, ON_DISK_WINDOW_BYTES));
        const tail = tails.get(recordPath);
        // A record the window cannot find is unknown, not held; only a window holding the whole file proves it absent.
        if (tail !== undefined) recordOnDisk = recordIn(tail, call.id);
      }
    }
    const entry: StatuslineCall = { id: call.id, firedAt, held: isHeld({ firedAt, recordOnDisk }) };
    if (recordOnDisk !== undefined) entry.recordOnDisk = recordOnDisk;
    if (call.seen.hooks !== undefined) entry.hooks = call.seen.hooks;
    if (recordOnDisk === true) {
      const held = verdictFromHook(call.seen, firedAt).held;
      if (held) entry.bounds = held;
    }
    out.push(entry);
  }
  return out;
}

