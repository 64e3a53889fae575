import type { SessionSnapshot } from '../core/snapshot';

const MAX_TITLE = 60;

/** The session's `ai-title`, else its first prompt, else a short session id; one line, bounded. */
export function sessionTitle(s: Pick<SessionSnapshot, 'session_id' | 'title' | 'first_prompt'>): string {
  const raw = s.title?.trim() || s.first_prompt?.trim() || `session ${s.session_id.slice(0, 8)}`;
  const oneLine = raw.replace(/\s+/g, ' ');
  return oneLine.length > MAX_TITLE ? `${oneLine.slice(0, MAX_TITLE - 1)}…` : oneLine;
}

/** A tool name for display; a call whose record has not been seen may lack it. */
export function toolLabel(toolName: string | undefined): string {
  return toolName && toolName.length > 0 ? toolName : 'tool call';
}
