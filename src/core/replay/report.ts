/**
 * What `replay` says of each call and of the whole run: the `--json` lines (docs/CHANNEL.md, "What
 * `replay --json` prints") and the sentence a hook author reads at the end.
 */
import type { Decision } from './decision';
import type { LiveBasis, RecordAt } from './liveCut';

/** One run of the hook on one call. */
export interface RunReport {
  decision: Decision;
  reason: string | null;
  exit_code: number | null;
  ms: number;
  stdout: string;
  stderr: string;
  /** Bytes of the transcript copy it was handed (the subagent's own for a subagent's call). */
  transcript_bytes: number;
}

/** One live run: the record appended `record_at_ms` after the hook started (0: there from the start; null: not while it ran). */
export interface LiveRunReport extends RunReport {
  record_at_ms: RecordAt;
}

/** One `--json` line: a call (and, with --settings, one of its hooks). */
export interface CallReport {
  tool_use_id: string;
  tool_name: string;
  /** The subagent whose call it is; absent for the session's own. */
  agent_id?: string;
  /** With --settings: the hook that ran, and the settings file it came from. */
  hook?: { command: string; args?: string[]; source: string };
  basis: LiveBasis;
  /** The most likely live run (one of `live_timings`). */
  live: LiveRunReport;
  /** The hook run at each time the record may land (src/core/replay/liveCut.ts), earliest first, null last. */
  live_timings: LiveRunReport[];
  complete: RunReport;
  /** The live runs did not all decide alike: the hook's decision depends on when it reads. */
  timing_dependent: boolean;
  /** A live run decided otherwise than the complete run. */
  differs: boolean;
}

/** Whether the live runs disagree, and whether any differs from the complete run. */
export function verdictOfRuns(timings: readonly LiveRunReport[], complete: RunReport): { timing_dependent: boolean; differs: boolean } {
  const decisions = new Set(timings.map((t) => t.decision));
  return { timing_dependent: decisions.size > 1, differs: timings.some((t) => t.decision !== complete.decision) };
}

export interface ReplaySummary {
  event: 'summary';
  /** Lines before it: calls replayed (with --settings, a call once per hook that matched it). */
  calls: number;
  /** Of them, those with a live decision that differs from the complete one. */
  differs: number;
  /** Of them, those whose live decisions depend on when the record lands. */
  timing_dependent: number;
  /** Of them, those with a run that ended in `error`. */
  errors: number;
  /** Of them, those with a run cut at the timeout. */
  timeouts: number;
  /** Calls that could not be replayed (said on stderr). */
  skipped: number;
}

export function summaryOf(reports: readonly CallReport[], skipped: number): ReplaySummary {
  const either = (r: CallReport, d: Decision) => r.live_timings.some((t) => t.decision === d) || r.complete.decision === d;
  return {
    event: 'summary',
    calls: reports.length,
    differs: reports.filter((r) => r.differs).length,
    timing_dependent: reports.filter((r) => r.timing_dependent).length,
    errors: reports.filter((r) => either(r, 'error')).length,
    timeouts: reports.filter((r) => either(r, 'timeout')).length,
    skipped,
  };
}

/**
 * The sentence for the hook's author. `liveLacksRecord`: per report, whether the live copy lacked the
 * call's record: when every call decided differently lacked it, the record is what the hook depends
 * on. `severalHooks`: the settings' hooks were replayed (each line one hook on one call).
 */
export function verdictOf(reports: readonly CallReport[], liveLacksRecord: readonly boolean[], severalHooks = false): string {
  const n = reports.length;
  const unit = severalHooks ? (n === 1 ? 'hook run' : 'hook runs') : n === 1 ? 'call' : 'calls';
  const all = n === 1 ? `the one ${unit}` : `all ${n} ${unit}`;
  const [hook, does, depends, its] = severalHooks ? ['your hooks', 'do', 'depend', 'their'] : ['your hook', 'does', 'depends', 'its'];
  if (n === 0) return `no ${severalHooks ? 'hook runs' : 'calls'} to replay.`;
  const differing = reports.map((r, i) => (r.differs ? i : -1)).filter((i) => i >= 0);
  const parts: string[] = [];
  if (differing.length === 0) {
    parts.push(
      liveLacksRecord.some((lacked) => lacked)
        ? `decided the same on ${all}, live and complete: ${hook} ${does} not depend on ${its} call being in the transcript`
        : `decided the same on ${all}, live and complete (each call's record was in the transcript it saw live)`,
    );
  } else if (differing.every((i) => liveLacksRecord[i])) {
    parts.push(`decided differently on ${differing.length} of ${n} ${unit}: ${hook} ${depends} on ${its} call being in the transcript, which it is not while it runs`);
  } else {
    parts.push(`decided differently on ${differing.length} of ${n} ${unit}: ${hook} ${depends} on what the transcript holds when it runs`);
  }
  const dependent = reports.filter((r) => r.timing_dependent);
  if (dependent.length > 0) {
    let first = Infinity;
    let last = -Infinity;
    for (const r of dependent) {
      for (const t of r.live_timings) {
        if (t.record_at_ms === null || t.record_at_ms === 0) continue;
        first = Math.min(first, t.record_at_ms);
        last = Math.max(last, t.record_at_ms);
      }
    }
    const when = first <= last ? ` (here ${first}–${last} ms after it started, or not while it runs)` : '';
    parts.push(`on ${dependent.length} of them it depends on timing: it decides otherwise when it reads before its call lands${when}`);
  }
  const s = summaryOf(reports, 0);
  if (s.timeouts > 0) parts.push(`${s.timeouts} of them timed out`);
  if (s.errors > 0) parts.push(`${s.errors} of them ended in an error (an exit other than 0 or 2: Claude Code goes on)`);
  return `${parts.join('; ')}.`;
}
