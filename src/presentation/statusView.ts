import type { CallSnapshot, SessionSnapshot } from '../core/snapshot';
import { heldLineOf, oldestHeld } from './callChoice';
import { COMMANDS } from './commandIds';
import { formatDuration, lagPhrase, formatStat } from './format';
import { commandLink, escapeMarkdown } from './markdown';
import { sessionTitle, toolLabel } from './sessionLabel';

export const WARNING_BACKGROUND = 'statusBarItem.warningBackground';
export const ERROR_BACKGROUND = 'statusBarItem.errorBackground';
export type StatusBackground = typeof WARNING_BACKGROUND | typeof ERROR_BACKGROUND | undefined;

/** Claude Code kills a command hook after 60 s unless the hook entry sets its own timeout. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;
/** A hold "nears the hook's timeout" once it has used this share of it. */
export const NEAR_TIMEOUT_FRACTION = 0.8;

export interface StatusOptions {
  warnAfterMs: number;
}

export interface StatusView {
  /** Hidden until a session is active. */
  visible: boolean;
  text: string;
  background: StatusBackground;
  /** Why the background is what it is, for the log and the tests. */
  reason: 'none' | 'hold-past-warn' | 'hook-behind' | 'near-timeout';
  held: number;
  /** Age of the oldest hold; undefined when nothing is held. */
  oldestHeldAgeMs?: number;
  /** True while something is held: the age in the text must tick. */
  ticking: boolean;
  /** Markdown for the tooltip. */
  tooltip: string;
}

interface HeldCall {
  session: SessionSnapshot;
  call: CallSnapshot;
}

function allHeld(sessions: readonly SessionSnapshot[]): HeldCall[] {
  return sessions.flatMap((session) => session.held.map((call) => ({ session, call })));
}

function holdAge(call: CallSnapshot, now: number): number {
  return call.fired_at === undefined ? 0 : Math.max(0, now - call.fired_at);
}

/** The newest written call across sessions: what "in sync" reports the lag of. */
function newestWritten(sessions: readonly SessionSnapshot[]): CallSnapshot | undefined {
  let newest: CallSnapshot | undefined;
  for (const s of sessions) {
    const c = s.recent[0];
    if (c && (!newest || (c.observed_at ?? 0) > (newest.observed_at ?? 0))) newest = c;
  }
  return newest;
}

/** The most recent wait outcome a hook reported in a session (held calls first: they are the newest). */
function latestWaitOutcome(session: SessionSnapshot): 'seen' | 'behind' | 'error' | undefined {
  for (const c of session.held) if (c.wait) return c.wait.outcome;
  for (const c of session.recent) if (c.wait) return c.wait.outcome;
  return undefined;
}

export function chooseBackground(
  sessions: readonly SessionSnapshot[],
  now: number,
  opts: StatusOptions,
): { background: StatusBackground; reason: StatusView['reason'] } {
  const held = allHeld(sessions);
  // A reviewing hook that gave up is the failure this product exists to show: red.
  if (sessions.some((s) => latestWaitOutcome(s) === 'behind')) return { background: ERROR_BACKGROUND, reason: 'hook-behind' };
  for (const { call } of held) {
    // A hook that reported how its wait ended has finished: it can no longer time out.
    if (call.wait) continue;
    const timeout = call.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS;
    if (holdAge(call, now) >= timeout * NEAR_TIMEOUT_FRACTION) return { background: ERROR_BACKGROUND, reason: 'near-timeout' };
  }
  const oldestAge = Math.max(0, ...held.map(({ call }) => holdAge(call, now)));
  if (held.length > 0 && oldestAge > opts.warnAfterMs) return { background: WARNING_BACKGROUND, reason: 'hold-past-warn' };
  return { background: undefined, reason: 'none' };
}

export function statusText(sessions: readonly SessionSnapshot[], now: number): string {
  const held = allHeld(sessions);
  if (held.length > 0) {
    const oldestAge = Math.max(...held.map(({ call }) => holdAge(call, now)));
    return `$(watch) ${held.length} held · ${formatDuration(oldestAge)}`;
  }
  const last = newestWritten(sessions);
  if (last && last.lag_ms !== null && last.lag_ms !== undefined) return `$(check) ${formatDuration(last.lag_ms)}`;
  return '$(check) in sync';
}

function heldLineText(s: SessionSnapshot, h: CallSnapshot): string {
  const line = heldLineOf(s, h);
  const sub = h.agent_id !== undefined ? ' of its subagent transcript' : '';
  return line === undefined ? 'its subagent transcript was not found' : `its record will land after line ${line}${sub}`;
}

function sessionTooltip(s: SessionSnapshot, now: number): string {
  const st = s.stats;
  const lines = [
    `**${escapeMarkdown(sessionTitle(s))}**`,
    '',
    `Waits seen / behind: **${st.waits_seen}** / **${st.waits_behind}**  `,
    `Lag p50 / p95: ${formatStat(st.lag_p50_ms)} / ${formatStat(st.lag_p95_ms)}  `,
    `Shapes: ${st.shape_before_result} before result · ${st.shape_with_result} with result  `,
  ];
  const h = oldestHeld(s);
  if (h) {
    lines.push(
      // No age here: the status text ticks; a tooltip that changed every tick would flicker while hovered.
      `Held: ${s.held.length} — oldest ${escapeMarkdown(toolLabel(h.tool_name))}, ${heldLineText(s, h)}`,
    );
  } else if (s.recent[0]) {
    const c = s.recent[0];
    lines.push(`Last call: ${escapeMarkdown(toolLabel(c.tool_name))} at line ${c.line ?? '?'}, ${lagPhrase(c.lag_ms)}`);
  }
  return lines.join('\n');
}

/** At most this many sessions in the tooltip; the tree lists them all. */
const TOOLTIP_SESSIONS = 3;

export function statusTooltip(sessions: readonly SessionSnapshot[], now: number): string {
  const parts = ['$(watch) **Transcript Lag**', ''];
  for (const s of sessions.slice(0, TOOLTIP_SESSIONS)) parts.push(sessionTooltip(s, now), '', '---', '');
  if (sessions.length > TOOLTIP_SESSIONS) parts.push(`…and ${sessions.length - TOOLTIP_SESSIONS} more in the Transcript Lag view`, '');
  const held = allHeld(sessions).length > 0;
  parts.push(
    [
      commandLink(held ? 'Open at held line' : 'Open at last call', COMMANDS.openHeldLine),
      commandLink('Session report', COMMANDS.showReport),
      commandLink('Show log', COMMANDS.showLog),
    ].join(' · '),
  );
  return parts.join('\n');
}

export function statusView(sessions: readonly SessionSnapshot[], now: number, opts: StatusOptions): StatusView {
  if (sessions.length === 0) {
    return { visible: false, text: '', background: undefined, reason: 'none', held: 0, ticking: false, tooltip: '' };
  }
  const held = allHeld(sessions);
  const { background, reason } = chooseBackground(sessions, now, opts);
  return {
    visible: true,
    text: statusText(sessions, now),
    background,
    reason,
    held: held.length,
    oldestHeldAgeMs: held.length > 0 ? Math.max(...held.map(({ call }) => holdAge(call, now))) : undefined,
    ticking: held.length > 0,
    tooltip: statusTooltip(sessions, now),
  };
}
