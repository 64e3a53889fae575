import { claudeCodeSentences } from '../core/compat/claudeCode';
import { shownAsHeld, type CallSnapshot, type SessionSnapshot } from '../core/snapshot';
import { callTranscriptPath, focusCall, heldLineOf, revealTargetFor, type RevealTarget } from './callChoice';
import { callLagText, callShapeText, formatDuration, hooksText } from './format';
import { printable } from '../rules/printable';
import { sessionName, sessionNames, sessionsNewestFirst, sessionTitle, startLabel, toolLabel } from './sessionLabel';

/**
 * The tree as plain data: src/vscode/heldCallsTree.ts maps each node to a
 * TreeItem one to one. Ids are stable across refreshes (VS Code keeps
 * expansion and selection by id), and a call keeps its id when it goes from
 * held to written.
 */
export interface TreeNodeView {
  id: string;
  kind: 'session' | 'held' | 'written';
  label: string;
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
  const tooltip = [
    call.tool_use_id,
    `held for ${formatDuration(age)}; ${heldWhere(session, call)}`,
    hooksLine(call),
    waitLine(call),
    hookModeNote(call),
    transportNote(call),
  ];
  return {
    id: callNodeId(session.session_id, call.tool_use_id),
    kind: 'held',
    label: toolLabel(call.tool_name),
    description: printable(parts.join(' · ')),
    tooltip: tooltip.filter((l): l is string => l !== undefined).map(printable).join('\n'),
    icon: call.wait?.outcome === 'behind' ? 'error' : 'watch',
    contextValue: 'heldCall',
    session_id: session.session_id,
    tool_use_id: call.tool_use_id,
    target: revealTargetFor(session, call),
    children: [],
  };
}

/** The record's per-call fields (the field table's `perCall` lines), one `key: value` line each, in the table's order. */
function recordLines(call: CallSnapshot): string[] {
  return Object.entries(call.record ?? {}).map(([key, value]) => `${key}: ${String(value)}`);
}

function writtenNode(session: SessionSnapshot, call: CallSnapshot): TreeNodeView {
  // The outcome first: a narrow sidebar cuts the end of a description, never its start.
  const parts: string[] = call.wait ? [call.wait.outcome] : [];
  // A fork's copy of its parent's call happened in the parent: it has no lag or shape of this session.
  if (call.copied_from !== undefined) parts.push(`copied from ${call.copied_from.slice(0, 8)}`);
  else {
    const hooks = hooksText(call.hooks);
    parts.push(callLagText(call), ...(hooks !== undefined ? [hooks] : []), callShapeText(call.shape));
  }
  if (call.agent_id) parts.push('subagent');
  const tooltip = [
    call.tool_use_id,
    `record at line ${call.line ?? '?'}`,
    ...recordLines(call),
    hooksLine(call),
    call.copied_from !== undefined ? `Copied by --fork-session from session ${call.copied_from}: its lag and shape are that session's.` : undefined,
    waitLine(call),
    hookModeNote(call),
    transportNote(call),
  ];
  return {
    id: callNodeId(session.session_id, call.tool_use_id),
    kind: 'written',
    label: toolLabel(call.tool_name),
    description: printable(parts.join(' · ')),
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
 * record was seen. None of these changes as the call's hold clears.
 */
function firstSeen(call: CallSnapshot): number {
  return call.fired_at ?? call.record_at ?? call.observed_at ?? 0;
}

/**
 * A session's calls in one stable order, newest first by when each began,
 * held and written interleaved: a call keeps its slot when its hold
 * clears, so the rows under the pointer do not move as holds clear.
 */
export function callsInOrder(session: SessionSnapshot): CallSnapshot[] {
  return [...session.held, ...session.recent].sort(
    (a, b) => firstSeen(b) - firstSeen(a) || (a.tool_use_id < b.tool_use_id ? -1 : a.tool_use_id > b.tool_use_id ? 1 : 0),
  );
}

function sessionTooltip(session: SessionSnapshot, now: number): string {
  const start = startLabel(session.started_at, now);
  return [
    sessionTitle(session),
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

export function sessionNode(session: SessionSnapshot, now: number, name = sessionName(session, [session], now)): TreeNodeView {
  const st = session.stats;
  const desc = [session.held.length > 0 ? `${session.held.length} held` : 'in sync'];
  if (st.waits_seen + st.waits_behind > 0) desc.push(`waits ${st.waits_seen} seen / ${st.waits_behind} behind`);
  if (st.lag_p50_ms !== null) desc.push(`p50 ${formatDuration(st.lag_p50_ms)}`);
  const children = callsInOrder(session).map((c) => (shownAsHeld(c) ? heldNode(session, c, now) : writtenNode(session, c)));
  return {
    id: sessionNodeId(session.session_id),
    kind: 'session',
    label: name,
    description: desc.join(' · '),
    tooltip: sessionTooltip(session, now),
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
