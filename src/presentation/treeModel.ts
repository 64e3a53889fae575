import type { CallSnapshot, SessionSnapshot } from '../core/snapshot';
import { callTranscriptPath, focusCall, heldLineOf, revealTargetFor, type RevealTarget } from './callChoice';
import { formatDuration, lagPhrase, shapeLabel, shapeOf } from './format';
import { sessionTitle, toolLabel } from './sessionLabel';

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

function outcomeText(call: CallSnapshot): string {
  if (!call.wait) return call.fired_at === undefined ? 'no hook' : 'hook waiting';
  return `hook ${call.wait.outcome} after ${call.wait.polls} polls`;
}

/** Where a held call's record will land, in words: a subagent's own file is named, and one never seen is said to be. */
function heldWhere(session: SessionSnapshot, call: CallSnapshot): string {
  const line = heldLineOf(session, call);
  const file = callTranscriptPath(session, call);
  const inFile = file === session.transcript_path ? '' : ` of ${baseName(file)}`;
  return line === undefined ? `its transcript ${baseName(file)} was not found` : `its record will land after line ${line}${inFile}`;
}

function baseName(p: string): string {
  return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
}

function heldNode(session: SessionSnapshot, call: CallSnapshot, now: number): TreeNodeView {
  const age = call.fired_at === undefined ? 0 : now - call.fired_at;
  const agent = call.agent_id ? ' · subagent' : '';
  return {
    id: callNodeId(session.session_id, call.tool_use_id),
    kind: 'held',
    label: toolLabel(call.tool_name),
    description: `held ${formatDuration(age)} · ${outcomeText(call)}${agent}`,
    tooltip: `${call.tool_use_id}\nheld for ${formatDuration(age)}; ${heldWhere(session, call)}`,
    icon: call.wait?.outcome === 'behind' ? 'error' : 'watch',
    contextValue: 'heldCall',
    session_id: session.session_id,
    tool_use_id: call.tool_use_id,
    target: revealTargetFor(session, call),
    children: [],
  };
}

function writtenNode(session: SessionSnapshot, call: CallSnapshot): TreeNodeView {
  const shape = shapeLabel(shapeOf(call.with_result));
  const parts = [lagPhrase(call.lag_ms)];
  if (shape) parts.push(shape);
  if (call.wait) parts.push(`hook ${call.wait.outcome}`);
  if (call.agent_id) parts.push('subagent');
  return {
    id: callNodeId(session.session_id, call.tool_use_id),
    kind: 'written',
    label: toolLabel(call.tool_name),
    description: parts.join(' · '),
    tooltip: `${call.tool_use_id}\nrecord at line ${call.line ?? '?'}`,
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

export function sessionNode(session: SessionSnapshot, now: number): TreeNodeView {
  const st = session.stats;
  const desc = [session.held.length > 0 ? `${session.held.length} held` : 'in sync'];
  if (st.waits_seen + st.waits_behind > 0) desc.push(`waits ${st.waits_seen} seen / ${st.waits_behind} behind`);
  if (st.lag_p50_ms !== null) desc.push(`p50 ${formatDuration(st.lag_p50_ms)}`);
  // Held calls first: they are what a user opens the view for.
  const children = [
    ...session.held.map((c) => heldNode(session, c, now)),
    ...session.recent.map((c) => writtenNode(session, c)),
  ];
  return {
    id: sessionNodeId(session.session_id),
    kind: 'session',
    label: sessionTitle(session),
    description: desc.join(' · '),
    tooltip: `${session.transcript_path}\n${session.last_line} lines on disk`,
    icon: session.held.length > 0 ? 'watch' : 'comment-discussion',
    contextValue: 'session',
    session_id: session.session_id,
    target: targetOfSession(session),
    children,
  };
}

export function treeModel(sessions: readonly SessionSnapshot[], now: number): TreeNodeView[] {
  return sessions.map((s) => sessionNode(s, now));
}

/** The view badge: calls held across sessions; undefined hides it. */
export function heldBadge(sessions: readonly SessionSnapshot[]): { value: number; tooltip: string } | undefined {
  const n = sessions.reduce((sum, s) => sum + s.held.length, 0);
  return n > 0 ? { value: n, tooltip: `${n} ${n === 1 ? 'call' : 'calls'} held back from the transcript` } : undefined;
}
