import type { SessionSnapshot } from '../core/snapshot';
import { printable } from '../rules/printable';

const MAX_TITLE = 60;

/** The session's `ai-title`, else its first prompt, else a short session id; one printable line, bounded. */
export function sessionTitle(s: Pick<SessionSnapshot, 'session_id' | 'title' | 'first_prompt'>): string {
  const raw = s.title?.trim() || s.first_prompt?.trim() || `session ${s.session_id.slice(0, 8)}`;
  const oneLine = printable(raw).replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_TITLE ? `${oneLine.slice(0, MAX_TITLE - 1)}…` : oneLine;
}

/** A tool name for display, printable; a call whose record has not been seen may lack it. */
export function toolLabel(toolName: string | undefined): string {
  const name = toolName === undefined ? '' : printable(toolName);
  return name.length > 0 ? name : 'tool call';
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * When a session started, in the user's local time: `14:05` on the day of
 * `now`, `Dec 1 14:05` on another day. Undefined when the start is unknown.
 */
export function startLabel(startedAt: number | undefined, now: number): string | undefined {
  if (startedAt === undefined || !Number.isFinite(startedAt)) return undefined;
  const d = new Date(startedAt);
  const n = new Date(now);
  const time = `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  const sameDay = d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate();
  return sameDay ? time : `${MONTHS[d.getMonth()]} ${d.getDate()} ${time}`;
}

/**
 * Sessions most recent first: by start time, newest first; sessions whose
 * start is unknown (no record with a timestamp read yet) after them, by id,
 * so the order does not move as activity comes and goes.
 */
export function sessionsNewestFirst<T extends Pick<SessionSnapshot, 'session_id' | 'started_at'>>(sessions: readonly T[]): T[] {
  return [...sessions].sort((a, b) => {
    const sa = a.started_at ?? -Infinity;
    const sb = b.started_at ?? -Infinity;
    if (sa !== sb) return sb - sa;
    return a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0;
  });
}

type Named = Pick<SessionSnapshot, 'session_id' | 'title' | 'first_prompt' | 'started_at' | 'cwd' | 'git_branch'>;

function titleAndStart(s: Named, now: number): string {
  const start = startLabel(s.started_at, now);
  return start === undefined ? sessionTitle(s) : `${sessionTitle(s)} · ${start}`;
}

function cwdTail(cwd: string | undefined): string | undefined {
  if (!cwd) return undefined;
  const parts = cwd.split(/[\\/]+/).filter((p) => p.length > 0);
  return parts.length > 0 ? parts[parts.length - 1] : cwd;
}

function allDistinct(values: readonly (string | undefined)[]): values is string[] {
  return values.every((v) => v !== undefined && v.length > 0) && new Set(values).size === values.length;
}

/** The shortest id prefix (at least 8 characters) that tells every id of the group apart. */
function idPrefixes(ids: readonly string[]): string[] {
  for (let len = 8; ; len++) {
    const prefixes = ids.map((id) => id.slice(0, len));
    if (new Set(prefixes).size === prefixes.length || ids.every((id) => id.length <= len)) return prefixes;
  }
}

/**
 * A name a person can tell apart for every session: its title (or first
 * prompt) and start time; where two names still collide, the folder it ran
 * in, else its git branch, else enough of its id. Keyed by session id.
 */
export function sessionNames(sessions: readonly Named[], now: number): Map<string, string> {
  const groups = new Map<string, Named[]>();
  for (const s of sessions) {
    const base = titleAndStart(s, now);
    const group = groups.get(base);
    if (group) group.push(s);
    else groups.set(base, [s]);
  }
  const names = new Map<string, string>();
  for (const [base, group] of groups) {
    if (group.length === 1) {
      names.set(group[0].session_id, base);
      continue;
    }
    const folders = group.map((s) => cwdTail(s.cwd));
    const branches = group.map((s) => s.git_branch);
    const extra = allDistinct(folders) ? folders : allDistinct(branches) ? branches : idPrefixes(group.map((s) => s.session_id));
    group.forEach((s, i) => names.set(s.session_id, `${base} · ${printable(extra[i]!)}`));
  }
  return names;
}

/** One session's name among all of them (see sessionNames); its base name when it is not among them. */
export function sessionName(s: Named, all: readonly Named[], now: number): string {
  return sessionNames(all, now).get(s.session_id) ?? titleAndStart(s, now);
}

/** What the session picker lists: most recent first, each a name a person can tell apart. */
export interface SessionPickItem {
  session_id: string;
  label: string;
  description: string;
  detail: string;
}

export function sessionPickItems(sessions: readonly SessionSnapshot[], now: number): SessionPickItem[] {
  const names = sessionNames(sessions, now);
  return sessionsNewestFirst(sessions).map((s) => ({
    session_id: s.session_id,
    label: names.get(s.session_id) as string,
    description: s.held.length > 0 ? `${s.held.length} held` : 'in sync',
    detail: printable([s.cwd, s.git_branch, s.session_id].filter((p) => p !== undefined && p.length > 0).join(' · ')),
  }));
}
