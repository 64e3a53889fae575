import { shownAsHeld, type CallSnapshot, type SessionSnapshot } from '../core/snapshot';

/**
 * Which line of which transcript to open for a call. A held call's record is
 * not on disk yet: it will land after the last complete line, so that line is
 * "the held line". A written call opens at its record's line.
 */
export interface RevealTarget {
  session_id: string;
  tool_use_id: string;
  transcript_path: string;
  /** 1-based; at least 1 (an empty transcript opens at its top). */
  line: number;
  held: boolean;
  /**
   * True when the file was never seen: a held subagent call whose subagent
   * transcript was not found. `transcript_path` is then where Claude Code
   * writes it, and nothing should be opened in its place.
   */
  not_found?: boolean;
}

/** The file a call's record is (or will be) in: its own, which for a subagent call is the subagent's transcript. */
export function callTranscriptPath(session: SessionSnapshot, call: CallSnapshot): string {
  return call.transcript_path ?? session.transcript_path;
}

/**
 * A held call's held line: the last line on disk of the file its record will
 * land in. Undefined for a subagent call whose transcript was never seen.
 */
export function heldLineOf(session: SessionSnapshot, call: CallSnapshot): number | undefined {
  if (call.held_line !== undefined) return call.held_line;
  if (call.agent_id !== undefined && callTranscriptPath(session, call) !== session.transcript_path) return undefined;
  return session.last_line;
}

export function revealTargetFor(session: SessionSnapshot, call: CallSnapshot): RevealTarget {
  const held = shownAsHeld(call);
  const line = held ? heldLineOf(session, call) : (call.line as number);
  return {
    session_id: session.session_id,
    tool_use_id: call.tool_use_id,
    transcript_path: callTranscriptPath(session, call),
    line: Math.max(1, line ?? 1),
    held,
    ...(line === undefined ? { not_found: true } : {}),
  };
}

/** The call a session points at: its oldest held call, else its most recent written call. */
export function focusCall(session: SessionSnapshot): CallSnapshot | undefined {
  return oldestHeld(session) ?? session.recent[0];
}

export function oldestHeld(session: SessionSnapshot): CallSnapshot | undefined {
  let oldest: CallSnapshot | undefined;
  for (const c of session.held) {
    if (oldest === undefined || (c.fired_at ?? Infinity) < (oldest.fired_at ?? Infinity)) oldest = c;
  }
  return oldest;
}

/**
 * Where the status bar click goes across all sessions: the oldest held call of
 * any session; when nothing is held, the newest written call of any session.
 */
export function statusClickTarget(sessions: readonly SessionSnapshot[]): RevealTarget | undefined {
  let best: { session: SessionSnapshot; call: CallSnapshot } | undefined;
  for (const s of sessions) {
    const h = oldestHeld(s);
    if (h && (!best || (h.fired_at ?? Infinity) < (best.call.fired_at ?? Infinity))) best = { session: s, call: h };
  }
  if (best) return revealTargetFor(best.session, best.call);
  let newest: { session: SessionSnapshot; call: CallSnapshot } | undefined;
  for (const s of sessions) {
    const w = s.recent[0];
    if (w && (!newest || (w.observed_at ?? 0) > (newest.call.observed_at ?? 0))) newest = { session: s, call: w };
  }
  return newest ? revealTargetFor(newest.session, newest.call) : undefined;
}

/** Finds a call in a session's snapshot, held or recent. */
export function findCall(session: SessionSnapshot, toolUseId: string): CallSnapshot | undefined {
  return session.held.find((c) => c.tool_use_id === toolUseId) ?? session.recent.find((c) => c.tool_use_id === toolUseId);
}
