/**
 * The one line `transcript-lag statusline` prints in Claude Code's terminal status line. Pure:
 * the CLI reads the channel and the transcript, this says it. Short, since it shares a line with
 * whatever else the user's status line shows.
 */
import { formatDuration } from './format';

export interface TerminalStatus {
  /** Calls of the session whose hook fired and whose record is not on disk yet. */
  held: number;
  /** Age of the oldest of them (now − its hook's start). */
  oldestHeldMs: number;
  /** The newest written call's lag: exact when its landing was watched, else an upper bound; none when nothing bounds it. */
  last?: { lagMs: number; upperBound: boolean };
  /** Any hook event of this session in the channel at all. */
  hooked: boolean;
}

export function terminalStatusText(s: TerminalStatus): string {
  if (s.held > 0) return `transcript-lag: ${s.held} held · ${formatDuration(s.oldestHeldMs)}`;
  if (s.last) return `transcript-lag: lag ${s.last.upperBound ? '≤ ' : ''}${formatDuration(s.last.lagMs)}`;
  return s.hooked ? 'transcript-lag: in sync' : 'transcript-lag: no hook events yet';
}
