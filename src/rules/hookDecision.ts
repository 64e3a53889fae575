/**
 * A PreToolUse command hook's answer, read as Claude Code reads it (its hooks reference):
 * - exit 2: the call is blocked, and stderr is the reason fed back to Claude (`block`);
 * - exit 0 with a JSON object on stdout: `hookSpecificOutput.permissionDecision` (`allow`, `deny`
 *   or `ask`, with `permissionDecisionReason`), or the older top-level `decision` (`approve` is
 *   `allow`, `block` is `deny`, with `reason`); Claude Code reads JSON only on exit 0;
 * - exit 0 otherwise: `allow` (the call goes on to its permission check);
 * - any other exit, a signal, or a hook that could not be started: `error`, which does not block;
 * - cut at its timeout: `timeout` (Claude Code goes on without it, as for an error).
 */

export type Decision = 'allow' | 'deny' | 'ask' | 'block' | 'error' | 'timeout';

export const DECISIONS: readonly Decision[] = ['allow', 'deny', 'ask', 'block', 'error', 'timeout'];

/** How one run of a hook ended. */
export interface HookOutcome {
  /** Null when it did not exit by itself (a signal, a timeout) or never started. */
  exitCode: number | null;
  signal?: string | null;
  timedOut: boolean;
  /** The timeout that cut it, in ms. */
  timeoutMs?: number;
  /** Why it could not be started (a missing program in exec form). */
  spawnError?: string;
  stdout: string;
  stderr: string;
}

export interface HookAnswer {
  decision: Decision;
  reason: string | null;
}

const PERMISSION_DECISIONS: ReadonlySet<string> = new Set(['allow', 'deny', 'ask']);

function nonEmpty(text: unknown): string | null {
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : null;
}

/** The JSON object on stdout, if stdout is one. */
function jsonObjectOf(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function answerOf(o: HookOutcome): HookAnswer {
  if (o.timedOut) return { decision: 'timeout', reason: `timed out after ${((o.timeoutMs ?? 0) / 1000).toString()} s; its process group was killed` };
  if (o.spawnError !== undefined) return { decision: 'error', reason: o.spawnError };
  if (o.exitCode === 2) return { decision: 'block', reason: nonEmpty(o.stderr) };
  if (o.exitCode === 0) {
    const json = jsonObjectOf(o.stdout);
    const specific = json?.hookSpecificOutput;
    if (specific && typeof specific === 'object') {
      const s = specific as Record<string, unknown>;
      if (typeof s.permissionDecision === 'string' && PERMISSION_DECISIONS.has(s.permissionDecision)) {
        return { decision: s.permissionDecision as Decision, reason: nonEmpty(s.permissionDecisionReason) };
      }
    }
    if (json?.decision === 'approve') return { decision: 'allow', reason: nonEmpty(json.reason) };
    if (json?.decision === 'block') return { decision: 'deny', reason: nonEmpty(json.reason) };
    return { decision: 'allow', reason: null };
  }
  if (o.exitCode === null) return { decision: 'error', reason: `killed by ${o.signal ?? 'a signal'}` };
  return { decision: 'error', reason: nonEmpty(o.stderr) ?? `exit ${o.exitCode}` };
}
