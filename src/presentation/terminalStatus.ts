/**
 * The one line `transcript-lag statusline` prints in Claude Code's terminal status line. Pure:
 * the CLI reads the channel and the transcript, this says it. Short, since it shares a line with
 * whatever else the user's status line shows.
 */
import type { HeldBounds, HooksTimed } from '../rules/hookEvidence';
import { boundsText, formatDuration, hooksText } from './format';

export interface TerminalStatus {
  /** Calls of the session whose hook fired and whose record is not on disk yet. */
  held: number;
  /** Age of the oldest of them (now − its hook's start). */
  oldestHeldMs: number;
  /** The oldest held call's settings hooks, once they settled (the mod's figures). */
  oldestHeldHooks?: HooksTimed;
  /**
   * The newest written call (by its hook's fire time) and its lag as its hooks' evidence bounds it,
   * by the rule the views use for a call they did not watch land (src/rules/hookEvidence.ts): the
   * status line never watches, so it never has an exact lag. No bounds: nothing proves one.
   */
  last?: { toolUseId: string; bounds?: HeldBounds; hooks?: HooksTimed };
  /** Any hook event of this session in the channel at all. */
  hooked: boolean;
}

export function terminalStatusText(s: TerminalStatus): string {
  if (s.held > 0) return `transcript-lag: ${s.held} held · ${formatDuration(s.oldestHeldMs)}${withHooks(s.oldestHeldHooks)}`;
  if (s.last?.bounds) return `transcript-lag: lag ${boundsText(s.last.bounds)}${withHooks(s.last.hooks)}`;
  if (s.last?.hooks) return `transcript-lag: in sync${withHooks(s.last.hooks)}`;
  return s.hooked ? 'transcript-lag: in sync' : 'transcript-lag: no hook events yet';
}

/** ` · hooks 2.0s` where the mod timed the call's settings hooks; nothing otherwise. */
function withHooks(hooks: HooksTimed | undefined): string {
  const text = hooksText(hooks);
  return text === undefined ? '' : ` · ${text}`;
}
