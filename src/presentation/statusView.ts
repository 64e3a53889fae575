import { claudeCodeSentences } from '../core/compat/claudeCode';
import type { CallSnapshot, SessionSnapshot } from '../core/snapshot';
import { heldLineOf, oldestHeld } from './callChoice';
import { COMMANDS } from './commandIds';
import { boundsText, callLagText, formatDuration, formatStat } from './format';
import { commandLink, escapeMarkdown } from './markdown';
import { sessionNames, sessionsNewestFirst, toolLabel } from './sessionLabel';

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
  /** What a screen reader says: the text without icons, and the reason for the colour. */
  accessibilityLabel: string;
}

interface HeldRow {
  session: SessionSnapshot;
  call: CallSnapshot;
}

function allHeld(sessions: readonly SessionSnapshot[]): HeldRow[] {
  return sessions.flatMap((session) => session.held.map((call) => ({ session, call })));
}

function holdAge(call: CallSnapshot, now: number): number {
  return call.fired_at === undefined ? 0 : Math.max(0, now - call.fired_at);
}

/** The oldest hold's age, 0 when none: a loop, since Math.max(...ages) overflows the stack on a huge list. */
function oldestHoldAge(held: readonly HeldRow[], now: number): number {
  let oldest = 0;
  for (const { call } of held) oldest = Math.max(oldest, holdAge(call, now));
  return oldest;
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

/**
 * How long after a hook's wait ended behind the status bar stays red when the
 * call's record has landed since: long enough to be seen, short enough that
 * the colour speaks of the present. While the call is still held it stays red.
 */
export const BEHIND_RED_MS = 10_000;

/** When a call's hook wait ended: the wait starts as the hook fires, so fired_at + waited_ms. */
function waitEndedAt(call: CallSnapshot): number | undefined {
  if (!call.wait) return undefined;
  const start = call.fired_at ?? call.observed_at;
  return start === undefined ? undefined : start + call.wait.waited_ms;
}

/** The session's most recent hook wait, by when it ended (held and written calls alike). */
function latestWait(session: SessionSnapshot): CallSnapshot | undefined {
  let latest: CallSnapshot | undefined;
  for (const c of [...session.held, ...session.recent]) {
    if (!c.wait) continue;
    if (!latest || (waitEndedAt(c) ?? -Infinity) > (waitEndedAt(latest) ?? -Infinity)) latest = c;
  }
  return latest;
}

/**
 * A `behind` wait that still describes the present: its call is still held,
 * or it is the session's latest wait and ended less than BEHIND_RED_MS ago.
 */
export function behindNow(session: SessionSnapshot, now: number): CallSnapshot | undefined {
  const held = session.held.find((c) => c.wait?.outcome === 'behind');
  if (held) return held;
  const latest = latestWait(session);
  if (latest?.wait?.outcome !== 'behind') return undefined;
  const ended = waitEndedAt(latest);
  return ended !== undefined && now - ended < BEHIND_RED_MS ? latest : undefined;
}

export function chooseBackground(
  sessions: readonly SessionSnapshot[],
  now: number,
  opts: StatusOptions,
): { background: StatusBackground; reason: StatusView['reason'] } {
  const held = allHeld(sessions);
  // A reviewing hook that gave up is the failure this product exists to show: red, while it is the present.
  if (sessions.some((s) => behindNow(s, now) !== undefined)) return { background: ERROR_BACKGROUND, reason: 'hook-behind' };
  for (const { call } of held) {
    // A hook that reported how its wait ended has finished: it can no longer time out.
    if (call.wait) continue;
    const timeout = call.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS;
    if (holdAge(call, now) >= timeout * NEAR_TIMEOUT_FRACTION) return { background: ERROR_BACKGROUND, reason: 'near-timeout' };
  }
  const oldestAge = oldestHoldAge(held, now);
  if (held.length > 0 && oldestAge > opts.warnAfterMs) return { background: WARNING_BACKGROUND, reason: 'hold-past-warn' };
  return { background: undefined, reason: 'none' };
}

export function statusText(sessions: readonly SessionSnapshot[], now: number): string {
  const held = allHeld(sessions);
  if (held.length > 0) {
    const oldestAge = oldestHoldAge(held, now);
    return `$(watch) ${held.length} held · ${formatDuration(oldestAge)}`;
  }
  // Red with a check mark would say two things at once: while a behind wait is recent, the text says it too.
  const behind = sessions.map((s) => behindNow(s, now)).find((c) => c !== undefined);
  if (behind) return `$(error) hook behind · ${callLagText(behind)}`;
  const last = newestWritten(sessions);
  if (last && last.lag_ms !== null && last.lag_ms !== undefined) return `$(check) ${formatDuration(last.lag_ms)}`;
  // Only a bound proven (a call the window did not watch land): the bound, as the tree and the status line say it.
  if (last?.lag_bounds) return `$(check) ${boundsText(last.lag_bounds)}`;
  return '$(check) in sync';
}

const REASON_WORDS: Record<StatusView['reason'], string | undefined> = {
  none: undefined,
  'hold-past-warn': 'a hold is past the warning time',
  'hook-behind': "a hook's wait ended behind: the record was not on disk",
  'near-timeout': "a hold nears the hook's timeout",
};

/** What a screen reader says for the item: its text without icons, and why it is coloured. */
export function statusAccessibilityLabel(text: string, reason: StatusView['reason']): string {
  const words = text
    .replace(/\$\(check\)\s*/g, 'in sync, ')
    .replace(/\$\([a-z-]+\)\s*/g, '')
    .replace(/ · /g, ', ')
    .replace(/in sync, in sync/, 'in sync');
  const why = REASON_WORDS[reason];
  return `Transcript Lag: ${words}${why ? `; ${why}` : ''}`;
}

function heldLineText(s: SessionSnapshot, h: CallSnapshot): string {
  const line = heldLineOf(s, h);
  const sub = h.agent_id !== undefined ? ' of its subagent transcript' : '';
  return line === undefined ? 'its subagent transcript was not found' : `its record will land after line ${line}${sub}`;
}

function sessionTooltip(s: SessionSnapshot, name: string): string {
  const st = s.stats;
  const lines = [
    `**${escapeMarkdown(name)}**`,
    '',
    `Waits seen / behind: **${st.waits_seen}** / **${st.waits_behind}**  `,
    `Lag p50 / p95: ${formatStat(st.lag_p50_ms)} / ${formatStat(st.lag_p95_ms)}  `,
    `Shapes: ${st.shape_before_result} before result · ${st.shape_with_result} with result · ${st.shape_unknown} unknown  `,
  ];
  const h = oldestHeld(s);
  if (h) {
    lines.push(
      // No age here: the status text ticks; a tooltip that changed every tick would flicker while hovered.
      `Held: ${s.held.length} — oldest ${escapeMarkdown(toolLabel(h.tool_name))}, ${heldLineText(s, h)}`,
    );
    if (h.hook_mode === 'probe') lines.push('', "Probe mode: the hook waits for the record before it returns, so the probe's own wait lengthens the hold.");
    // Why it may be held: what was measured of the session's version (docs/COMPATIBILITY.md, npm run compat).
    const known = claudeCodeSentences(s.claude_version);
    if (known.length > 0) lines.push('', ...known.map((l) => `Claude Code ${escapeMarkdown(l)}  `));
  } else if (s.recent[0]) {
    const c = s.recent[0];
    lines.push(`Last call: ${escapeMarkdown(toolLabel(c.tool_name))} at line ${c.line ?? '?'}, ${callLagText(c)}`);
  }
  return lines.join('\n');
}

/** At most this many sessions in the tooltip; the tree lists them all. */
const TOOLTIP_SESSIONS = 3;

export function statusTooltip(sessions: readonly SessionSnapshot[], now: number): string {
  const parts = ['$(watch) **Transcript Lag**', ''];
  const names = sessionNames(sessions, now);
  for (const s of sessionsNewestFirst(sessions).slice(0, TOOLTIP_SESSIONS)) {
    parts.push(sessionTooltip(s, names.get(s.session_id) as string), '', '---', '');
  }
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
    return { visible: false, text: '', background: undefined, reason: 'none', held: 0, ticking: false, tooltip: '', accessibilityLabel: '' };
  }
  const held = allHeld(sessions);
  const { background, reason } = chooseBackground(sessions, now, opts);
  const text = statusText(sessions, now);
  return {
    visible: true,
    text,
    background,
    reason,
    held: held.length,
    oldestHeldAgeMs: held.length > 0 ? oldestHoldAge(held, now) : undefined,
    // A recent behind wait must be re-rendered when it stops being recent, so the colour clears.
    ticking: held.length > 0 || reason === 'hook-behind',
    tooltip: statusTooltip(sessions, now),
    accessibilityLabel: statusAccessibilityLabel(text, reason),
  };
}
