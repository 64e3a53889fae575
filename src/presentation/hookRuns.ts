/**
 * Each wrapped hook's run (`transcript-lag complete`'s `hook_run` events) in words, for the tree's
 * tooltip, `watch` and the report: one line per hook, so a hold's share is told hook by hook.
 */
import type { CallSnapshot, HookRunSnapshot } from '../core/snapshot';
import { formatDuration } from '../rules/durationText';

/** The run's decision, as Claude Code read it: `allowed`, `blocked (exit 2)`, `error (exit 1)`, `killed by SIGTERM`. */
export function hookRunDecisionText(run: Pick<HookRunSnapshot, 'decision' | 'exit_code' | 'signal'>): string {
  const ended = run.exit_code === null ? `killed by ${run.signal ?? 'a signal'}` : `exit ${run.exit_code}`;
  switch (run.decision) {
    case 'allow':
      return 'allowed';
    case 'deny':
      return 'denied';
    case 'ask':
      return 'asked the person';
    case 'block':
      return 'blocked (exit 2)';
    case 'error':
      return `error (${ended})`;
    default:
      return `decision not read (${ended})`;
  }
}

/** `review.sh 1.2s · blocked (exit 2)`: one run in a line (watch, the report's row). */
export function hookRunText(run: Pick<HookRunSnapshot, 'hook' | 'ms' | 'decision' | 'exit_code' | 'signal' | 'completed'>): string {
  return `${run.hook} ${formatDuration(run.ms)} · ${hookRunDecisionText(run)}${run.completed ? '' : ' · transcript without its call'}`;
}

/** The tooltip's lines on the call's wrapped hooks, one per run (label, time, decision), by start; none without them. */
export function hookRunLines(call: Pick<CallSnapshot, 'hook_runs'>): string[] {
  const runs = call.hook_runs ?? [];
  if (runs.length === 0) return [];
  return [`Its wrapped PreToolUse hooks (transcript-lag complete):`, ...runs.map((r) => `  ${hookRunText(r)}`)];
}
