import { claudeCodeSentences } from '../core/compat/claudeCode';
import { shownAsHeld, type CallSnapshot, type SessionSnapshot } from '../core/snapshot';
import { callTranscriptPath, focusCall, heldLineOf, revealTargetFor, type RevealTarget } from './callChoice';
import { callLagText, callShapeText, formatDuration, formatStat, hooksText } from './format';
import { hookRunLines } from './hookRuns';
import { printable } from '../rules/printable';
import { sessionName, sessionNames, sessionsNewestFirst, startLabel, toolLabel } from './sessionLabel';
import { readBackNote } from './readBack';

/**
 * The tree as plain data: src/vscode/heldCallsTree.ts maps each node to a
 * TreeItem one to one. Ids are stable across refreshes (VS Code keeps
 * expansion and selection by id), and a call keeps its id when it goes from
 * held to written.
 */
export interface TreeNodeView {
  id: string;
  kind: 'session' | 'held' | 'written';
  /**
   * What a hook author scans for first, so a sidebar at its default width (about 300 px) keeps it:
   * a session's state and figures, a call's tool. The description follows and is cut first; the
   * tooltip holds every figure either may lose.
   */
  label: string;
  /** A session's name, as the pickers and the report give it (its description, which may be cut); '' for a call. */
  name: string;
  /**
   * Every figure of the row, uncut, as its tooltip's first line says them: a call's with its wait's
   * outcome (`seen · held ≤ 121 ms · before result`), a session's with its waits and lag. A terminal,
   * which has the room, shows these (src/presentation/liveScreen.ts).
   */
  figures: string;
  description: string;
  tooltip: string;
  /** A codicon id. */
  icon: string;
  /** Matched by `view/item/context` menus in package.json. */
  contextValue: 'session' | 'heldCall' | 'writtenCall';
  session_id: string;
  tool_use_id?: string;
  /** What clicking the node opens. */
  target?: RevealTarget;
  children: TreeNodeView[];
}

export function sessionNodeId(sessionId: string): string {
  return `session/${sessionId}`;
}

export function callNodeId(sessionId: string, toolUseId: string): string {
  return `call/${sessionId}/${toolUseId}`;
}

/**
 * What reported a held call does for it, in its own terms: the mod looks at the file until the
 * record is there ("mod watching", beside "hooks 2.0s", which are the user's settings hooks); our
 * hook fired and returned, or, a probe, waits.
 */
function hookStateText(call: CallSnapshot): string {
  if (call.wait) return `${call.wait.polls} polls`;
  if (call.fired_at === undefined) return 'no hook';
  // Only a probe waits (and lengthens the hold): said first, whoever else reported the call.
  if (call.hook_mode === 'probe') return 'hook waiting';
  // In announce mode (or a mode no event named) our hook fired and returned.
  return call.transport === 'mod' ? 'mod watching' : 'hook fired';
}

/** Why a call's hold is what it is, by the hook's mode: a probe's own wait lengthens the hold it measures. */
function hookModeNote(call: CallSnapshot): string | undefined {
  if (call.hook_mode === 'probe') {
    return 'Probe mode: the hook waits for the record before it returns, and Claude Code waits for the hook, so the probe\'s own wait lengthens the hold.';
  }
  if (call.hook_mode === 'announce') return 'Announce mode: the hook reported the call and returned at once; it does not wait.';
  return undefined;
}

/** Who reported the call's fire time; the mod's is the moment tool.call fired, inside Claude Code. */
export function transportNote(call: CallSnapshot): string | undefined {
  if (call.transport === 'mod') return 'Reported by the mod, inside Claude Code: fired when tool.call fired.';
  if (call.transport === 'http') return 'Reported by an http hook: fired when its request reached the receiver.';
  if (call.transport === 'command') return 'Reported by a command hook: fired when its process started.';
  return undefined;
}

/** The tooltip's line on the call's settings PreToolUse hooks, when the mod timed them. */
function hooksLine(call: CallSnapshot): string | undefined {
  const h = call.hooks;
  if (h === undefined) return undefined;
  const decided = h.decision === undefined ? 'made no decision' : h.decision === 'allow' ? 'allowed it' : h.decision === 'ask' ? 'asked the person' : 'denied it';
  return `Its settings PreToolUse hooks ran ${formatDuration(h.ms)} (timed by the mod) and ${decided}.`;
}

function waitLine(call: CallSnapshot): string | undefined {
  const w = call.wait;
  return w ? `Hook's wait: ${w.outcome} after ${w.polls} polls, ${formatDuration(w.waited_ms)}` : undefined;
}

/** Where a held call's record will land, in words: a subagent's own file is named, and one never seen is said to be. */
function heldWhere(session: SessionSnapshot, call: CallSnapshot): string {
  const line = heldLineOf(session, call);
  const file = callTranscriptPath(session, call);
  const inFile = file === session.transcript_path ? '' : ` of ${fileNameOf(file)}`;
  return line === undefined ? `its transcript ${fileNameOf(file)} was not found` : `its record will land after line ${line}${inFile}`;
}

function fileNameOf(p: string): string {
  return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
}

function heldNode(session: SessionSnapshot, call: CallSnapshot, now: number): TreeNodeView {
  const age = call.fired_at === undefined ? 0 : now - call.fired_at;
  const held = `held ${formatDuration(age)}`;
  // The outcome first: a narrow sidebar cuts the end of a description, never its start.
  const parts = call.wait ? [call.wait.outcome, held] : [held];
  // Once its settings hooks have settled: their share of the hold so far (the mod's figures).
  const hooks = hooksText(call.hooks);
  parts.push(...(hooks !== undefined ? [hooks] : []), hookStateText(call));
  if (call.agent_id) parts.push('subagent');
  const figures = printable(parts.join(' · '));
  const tooltip = [
    call.tool_use_id,
    `${toolLabel(call.tool_name)}: ${figures}`,
    `held for ${formatDuration(age)}; ${heldWhere(session, call)}`,
    hooksLine(call),
    ...hookRunLines(call),
    waitLine(call),
    hookModeNote(call),
    transportNote(call),
  ];
  return {
    id: callNodeId(session.session_id, call.tool_use_id),
    kind: 'held',
    label: toolLabel(call.tool_name),
    name: '',
    figures,
    description: figures,
    tooltip: tooltip.filter((l): l is string => l !== undefined).map(printable).join('\n'),
    icon: call.wait?.outcome === 'behind' ? 'error' : 'watch',
    contextValue: 'heldCall',
    session_id: session.session_id,
    tool_use_id: call.tool_use_id,
    target: revealTargetFor(session, call),
    children: [],
  };
}

/**
 * A written row's figures as the row says them: where neither lag nor shape is known, once
 * (`behind · lag, shape unknown`), which a default-width sidebar keeps whole; the tooltip says each.
 */
function rowText(parts: readonly string[]): string {
  const lag = parts.indexOf('lag unknown');
  if (lag >= 0 && parts[lag + 1] === 'shape unknown') return [...parts.slice(0, lag), 'lag, shape unknown', ...parts.slice(lag + 2)].join(' · ');
  return parts.join(' · ');
}

/** What the row's shape means, in words; a fork's copy has none of this session's. */
function shapeLine(call: CallSnapshot): string | undefined {
  if (call.copied_from !== undefined) return undefined;
  if (call.shape === 'before_result') return 'Shape: before result: its record was on disk before its result (a hook could have seen it, given time).';
  if (call.shape === 'with_result') return 'Shape: with result: its record and its result came in one write (no hook could have seen it).';
  return 'Shape: unknown: nothing read proves whether its record came before its result.';
}

/** The record's per-call fields (the field table's `perCall` lines), one `key: value` line each, in the table's order. */
function recordLines(call: CallSnapshot): string[] {
  return Object.entries(call.record ?? {}).map(([key, value]) => `${key}: ${String(value)}`);
}

function writtenNode(session: SessionSnapshot, call: CallSnapshot): TreeNodeView {
  // The outcome first: a narrow sidebar cuts the end of a description, never its start. The wait's
  // outcome leads, `seen` as `behind`: the same words as `watch` and `analyze` (issue 43).
  const parts: string[] = call.wait?.outcome !== undefined ? [call.wait.outcome] : [];
  // A fork's copy of its parent's call happened in the parent: it has no lag or shape of this session.
  if (call.copied_from !== undefined) parts.push(`copied from ${call.copied_from.slice(0, 8)}`);
  else {
    const hooks = hooksText(call.hooks);
    parts.push(callLagText(call), ...(hooks !== undefined ? [hooks] : []), callShapeText(call.shape));
  }
  if (call.agent_id) parts.push('subagent');
  const figures = printable(parts.join(' · '));
  const tooltip = [
    call.tool_use_id,
    `${toolLabel(call.tool_name)}: ${figures}`,
    shapeLine(call),
    `record at line ${call.line ?? '?'}`,
    ...recordLines(call),
    hooksLine(call),
    ...hookRunLines(call),
    call.copied_from !== undefined ? `Copied by --fork-session from session ${call.copied_from}: its lag and shape are that session's.` : undefined,
    waitLine(call),
    hookModeNote(call),
    transportNote(call),
    readBackNote(call),
  ];
  return {
    id: callNodeId(session.session_id, call.tool_use_id),
    kind: 'written',
    label: toolLabel(call.tool_name),
    name: '',
    figures,
    description: printable(rowText(parts)),
    tooltip: tooltip.filter((l): l is string => l !== undefined).map(printable).join('\n'),
    icon: call.wait?.outcome === 'behind' ? 'warning' : 'check',
    contextValue: 'writtenCall',
    session_id: session.session_id,
    tool_use_id: call.tool_use_id,
    target: revealTargetFor(session, call),
    children: [],
  };
}

function targetOfSession(session: SessionSnapshot): RevealTarget | undefined {
  const call = focusCall(session);
  return call ? revealTargetFor(session, call) : undefined;
}

/**
 * When a call began: its hook fired, else its record's own timestamp (a call
 * read from history was observed only when the window opened), else when its
 * record was seen. None of these changes as the call's hold clears. Null and
 * absent alike (the report's samples say null).
 */
type Began = { tool_use_id: string; fired_at?: number | null; record_at?: number | null; observed_at?: number | null };

function firstSeen(call: Began): number {
  return call.fired_at ?? call.record_at ?? call.observed_at ?? 0;
}

/** Newest first by when each call began, then by id: the tree's order, which the report's table keeps too. */
export function newestCallFirst(a: Began, b: Began): number {
  return firstSeen(b) - firstSeen(a) || (a.tool_use_id < b.tool_use_id ? -1 : a.tool_use_id > b.tool_use_id ? 1 : 0);
}

/**
 * A session's calls in one stable order, newest first by when each began,
 * held and written interleaved: a call keeps its slot when its hold
 * clears, so the rows under the pointer do not move as holds clear.
 */
export function callsInOrder(session: SessionSnapshot): CallSnapshot[] {
  return [...session.held, ...session.recent].sort(newestCallFirst);
}

/** A session's waits in words: how many of its hooks' waits found their record, how many ended behind. */
function waitsText(st: SessionSnapshot['stats']): string {
  return `waits ${st.waits_seen} seen / ${st.waits_behind} behind`;
}

/** A session's figures whole: held, its waits, its lag. */
function sessionFigures(session: SessionSnapshot): string {
  const st = session.stats;
  const lag = st.lag_p50_ms === null ? 'lag: none measured' : `lag p50 ${formatDuration(st.lag_p50_ms)} · p95 ${formatStat(st.lag_p95_ms)}`;
  return `${session.held.length > 0 ? `${session.held.length} held` : 'in sync: no call held'} · ${waitsText(st)} · ${lag}`;
}

function sessionTooltip(session: SessionSnapshot, name: string, now: number): string {
  const st = session.stats;
  const start = startLabel(session.started_at, now);
  return [
    name,
    sessionFigures(session),
    `shapes: ${st.shape_before_result} before result · ${st.shape_with_result} with result · ${st.shape_unknown} unknown`,
    start === undefined ? 'started: unknown' : `started ${start}`,
    session.cwd,
    session.git_branch === undefined ? undefined : `branch ${session.git_branch}`,
    `session ${session.session_id}`,
    session.transcript_path,
    `${session.last_line} lines on disk`,
    // What the compat runner measured of this version (docs/COMPATIBILITY.md): whether its records wait for the hooks, whether the mod loads.
    ...claudeCodeSentences(session.claude_version).map((l) => `Claude Code ${l}`),
  ]
    .filter((l): l is string => l !== undefined && l.length > 0)
    .map(printable)
    .join('\n');
}

/**
 * A session's row leads with its state and figures (`2 held · 3 behind · p50 7.1s`), its name after
 * them: at the sidebar's default width a name of a few words already filled the row and cut the
 * figures. Waits that found their record are good news and in the tooltip; those that ended behind
 * are said in the row.
 */
export function sessionNode(session: SessionSnapshot, now: number, name = sessionName(session, [session], now)): TreeNodeView {
  const st = session.stats;
  const label = [session.held.length > 0 ? `${session.held.length} held` : 'in sync'];
  if (st.waits_behind > 0) label.push(`${st.waits_behind} behind`);
  if (st.lag_p50_ms !== null) label.push(`p50 ${formatDuration(st.lag_p50_ms)}`);
  const children = callsInOrder(session).map((c) => (shownAsHeld(c) ? heldNode(session, c, now) : writtenNode(session, c)));
  return {
    id: sessionNodeId(session.session_id),
    kind: 'session',
    label: label.join(' · '),
    name,
    figures: sessionFigures(session),
    description: name,
    tooltip: sessionTooltip(session, name, now),
    icon: session.held.length > 0 ? 'watch' : 'comment-discussion',
    contextValue: 'session',
    session_id: session.session_id,
    target: targetOfSession(session),
    children,
  };
}

/** Sessions most recent first, each named so a person can tell it from the others. */
export function treeModel(sessions: readonly SessionSnapshot[], now: number): TreeNodeView[] {
  const names = sessionNames(sessions, now);
  return sessionsNewestFirst(sessions).map((s) => sessionNode(s, now, names.get(s.session_id)));
}

/** The view badge: calls held across sessions; undefined hides it. */
export function heldBadge(sessions: readonly SessionSnapshot[]): { value: number; tooltip: string } | undefined {
  const n = sessions.reduce((sum, s) => sum + s.held.length, 0);
  return n > 0 ? { value: n, tooltip: `${n} ${n === 1 ? 'call' : 'calls'} held back from the transcript` } : undefined;
}
