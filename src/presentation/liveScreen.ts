/**
 * The terminal's live screen (`npm run demo` without VS Code): the Transcript Lag view's tree and
 * status bar as plain rows, so the terminal says what the extension says, in the same words.
 * Pure: src/cli/terminalDemo.ts draws the rows, in place on a TTY, as appended lines otherwise.
 * Every text from a transcript (titles, prompts, tool names) goes through printable.
 */
import type { SessionSnapshot } from '../core/snapshot';
import { heldLineOf } from './callChoice';
import { formatDuration, plural } from './format';
import { printable } from '../rules/printable';
import { statusView, type StatusBackground } from './statusView';
import { treeModel } from './treeModel';

/** The codicons the status bar and the tree use, as characters a terminal can show. */
const GLYPHS: Record<string, string> = {
  watch: '◷',
  check: '✓',
  error: '✗',
  warning: '!',
  'comment-discussion': '●',
};

function glyph(icon: string): string {
  return GLYPHS[icon] ?? '·';
}

export interface LiveCallRow {
  /** Stable across frames: the call keeps it from held to landed. */
  key: string;
  kind: 'held' | 'landed';
  glyph: string;
  /** Set on calls whose hook's wait ended behind: the view's error and warning icons. */
  behind: boolean;
  tool: string;
  /** The tree's description: `held 1.2s · hook waiting`, `behind · lag 2.4s · before result`. */
  description: string;
  /** Where the record is: `line 25`, or for a held call `after line 24`. */
  where: string;
  /**
   * What a log of the screen prints again when it changes: everything but a held call's ticking
   * age, which counts only in whole seconds, so a plain log says a hold goes on without a line per frame.
   */
  signature: string;
}

export interface LiveSessionRow {
  session_id: string;
  glyph: string;
  name: string;
  /** `2 held · waits 0 seen / 1 behind · p50 2.4s`: the probe's waits always, even while none ended. */
  summary: string;
  calls: LiveCallRow[];
}

export interface LiveScreen {
  /** The status bar's text with its icon as a glyph, or '' while no session is active. */
  status: string;
  background: StatusBackground;
  sessions: LiveSessionRow[];
}

function iconText(text: string): string {
  return text.replace(/\$\(([a-z-]+)\)/g, (_, icon: string) => glyph(icon));
}

function sessionSummary(s: SessionSnapshot): string {
  const st = s.stats;
  const parts = [s.held.length > 0 ? `${s.held.length} held` : 'in sync', `waits ${st.waits_seen} seen / ${st.waits_behind} behind`];
  if (st.calls_written > 0) parts.push(`${plural(st.calls_written, 'call')} landed`);
  if (st.lag_p50_ms !== null) parts.push(`lag p50 ${formatDuration(st.lag_p50_ms)}`);
  return parts.join(' · ');
}

export function liveScreen(sessions: readonly SessionSnapshot[], now: number, opts: { warnAfterMs: number }): LiveScreen {
  const status = statusView(sessions, now, opts);
  const byId = new Map(sessions.map((s) => [s.session_id, s]));
  return {
    status: status.visible ? printable(iconText(status.text)) : '',
    background: status.background,
    sessions: treeModel(sessions, now).map((node) => {
      const session = byId.get(node.session_id) as SessionSnapshot;
      const calls = [...session.held, ...session.recent];
      return {
        session_id: node.session_id,
        glyph: glyph(node.icon),
        name: printable(node.name),
        summary: sessionSummary(session),
        calls: node.children.map((child): LiveCallRow => {
          const call = calls.find((c) => c.tool_use_id === child.tool_use_id);
          const held = child.kind === 'held';
          const ageSeconds = held && call?.fired_at !== undefined ? Math.floor(Math.max(0, now - call.fired_at) / 1000) : 0;
          const heldLine = held && call ? heldLineOf(session, call) : undefined;
          const where = held ? (heldLine === undefined ? 'its transcript not found yet' : `after line ${heldLine}`) : child.target ? `line ${child.target.line}` : '';
          const description = printable(child.figures);
          return {
            key: child.id,
            kind: held ? 'held' : 'landed',
            glyph: glyph(child.icon),
            behind: call?.wait?.outcome === 'behind',
            tool: printable(child.label),
            description,
            where,
            signature: held ? `held|${call?.wait?.outcome ?? ''}|${call?.wait?.polls ?? ''}|${ageSeconds}|${where}` : `landed|${description}|${where}`,
          };
        }),
      };
    }),
  };
}
