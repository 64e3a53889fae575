import type { RevealTarget } from './callChoice';
import { REPLAY_MAX_ROWS, type ReplayRow, type ReplayRunCell, type ReplayState, type ReplayTableData } from './replayTable';

/**
 * A replay tab brought back after a reload (src/vscode/replayPanel.ts restore): the table its page
 * kept in the tab's state (media/replayState.js), read as hostile input, since it comes back from
 * storage: every field of its type, strings and lists bounded, else nothing is restored. What it
 * shows is what that replay said, except that a replay still running when the window reloaded was
 * stopped with the extension host (its hook killed, src/platform/exitCleanup.ts): it is shown
 * cancelled, with a note saying so, never as running.
 */

/** Longest string taken from the state: the table's own are far shorter (reasons are cut at 2 000). */
const MAX_TEXT = 10_000;
const MAX_NOTES = 200;
/** Year 9999: a start past it is not a time. */
const MAX_TIME_MS = 253_402_300_800_000;
const STATES: readonly ReplayState[] = ['running', 'done', 'cancelled', 'failed'];
const DECISIONS: readonly string[] = ['allow', 'deny', 'ask', 'block', 'error', 'timeout'];

export const RELOADED_WHILE_RUNNING = 'The window reloaded while this replay ran: it stopped there, and the table is what it had replayed by then.';

export function restoredReplay(state: unknown): ReplayTableData | undefined {
  if (!isObject(state)) return undefined;
  const s = state;
  if (!texts(s, ['session_id', 'session', 'transcript_path', 'hooks', 'progress', 'verdict', 'next_step'])) return undefined;
  if (typeof s.state !== 'string' || !STATES.includes(s.state as ReplayState)) return undefined;
  if (!count(s.calls) || !count(s.differs) || !count(s.timing_dependent)) return undefined;
  if (!Array.isArray(s.notes) || s.notes.length > MAX_NOTES || !s.notes.every(isText)) return undefined;
  // Absent from a tab kept before it was; else a time, or nothing is restored.
  if (s.started_at !== undefined && !(typeof s.started_at === 'number' && Number.isInteger(s.started_at) && s.started_at > 0 && s.started_at < MAX_TIME_MS)) return undefined;
  if (!Array.isArray(s.rows) || s.rows.length > REPLAY_MAX_ROWS) return undefined;
  const rows: ReplayRow[] = [];
  for (const r of s.rows) {
    const row = restoredRow(r);
    if (row === undefined) return undefined;
    rows.push(row);
  }
  const data: ReplayTableData = {
    session_id: s.session_id as string,
    session: s.session as string,
    transcript_path: s.transcript_path as string,
    hooks: s.hooks as string,
    ...(s.started_at !== undefined ? { started_at: s.started_at as number } : {}),
    state: s.state as ReplayState,
    progress: s.progress as string,
    verdict: s.verdict as string,
    next_step: s.next_step as string,
    notes: [...(s.notes as string[])],
    calls: s.calls as number,
    differs: s.differs as number,
    timing_dependent: s.timing_dependent as number,
    rows,
  };
  if (data.state !== 'running') return data;
  return { ...data, state: 'cancelled', notes: [...data.notes, RELOADED_WHILE_RUNNING] };
}

function restoredRow(r: unknown): ReplayRow | undefined {
  if (!isObject(r)) return undefined;
  if (!texts(r, ['tool_use_id', 'tool', 'file', 'bytes', 'timings', 'hook'])) return undefined;
  if (!line(r.line) || (r.basis !== 'channel' && r.basis !== 'model') || typeof r.differs !== 'boolean' || typeof r.timing_dependent !== 'boolean') return undefined;
  const live = runCell(r.live);
  const complete = runCell(r.complete);
  const target = revealTarget(r.target);
  if (!live || !complete || !target) return undefined;
  return {
    tool_use_id: r.tool_use_id as string,
    tool: r.tool as string,
    line: r.line as number,
    file: r.file as string,
    basis: r.basis,
    live,
    complete,
    bytes: r.bytes as string,
    differs: r.differs,
    timing_dependent: r.timing_dependent,
    timings: r.timings as string,
    hook: r.hook as string,
    target,
  };
}

function runCell(c: unknown): ReplayRunCell | undefined {
  if (!isObject(c) || !texts(c, ['reason', 'reason_full', 'exit', 'took']) || typeof c.decision !== 'string' || !DECISIONS.includes(c.decision)) return undefined;
  return { decision: c.decision as ReplayRunCell['decision'], reason: c.reason as string, reason_full: c.reason_full as string, exit: c.exit as string, took: c.took as string };
}

function revealTarget(t: unknown): RevealTarget | undefined {
  if (!isObject(t) || !texts(t, ['session_id', 'tool_use_id', 'transcript_path']) || !line(t.line) || typeof t.held !== 'boolean') return undefined;
  if (t.not_found !== undefined && typeof t.not_found !== 'boolean') return undefined;
  return {
    session_id: t.session_id as string,
    tool_use_id: t.tool_use_id as string,
    transcript_path: t.transcript_path as string,
    line: t.line as number,
    held: t.held,
    ...(t.not_found !== undefined ? { not_found: t.not_found } : {}),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isText(v: unknown): v is string {
  return typeof v === 'string' && v.length <= MAX_TEXT;
}

function texts(o: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.every((k) => isText(o[k]));
}

function count(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

function line(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}
