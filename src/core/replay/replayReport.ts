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
  /**
   * The record waited for the hook's first read of its transcript (the latest landing, which a hook
   * that starts faster live than replayed reads before): `record_at_ms` is when it landed, null when
   * that was only as the hook ended or after.
   */
  after_first_read?: true;
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

/** When a live run's copy got the call's record, in words: the CLI's table and VS Code's say it alike. */
export function landingText(recordAt: RecordAt, afterFirstRead = false): string {
  const when = recordAt === null ? 'not while it ran' : recordAt === 0 ? 'from the start' : `${recordAt} ms`;
  return afterFirstRead && recordAt !== null ? `${when}, after its first read` : when;
}

/** A call's live runs, each as when its record landed and what the hook decided then: `from the start allow · 99 ms allow · not while it ran deny`. */
export function liveTimingsText(timings: readonly LiveRunReport[]): string {
  return timings.map((t) => `${landingText(t.record_at_ms, t.after_first_read === true)} ${t.decision}`).join(' · ');
}

/**
 * The way past a live decision unlike the complete one, for a hook that reads the transcript for its call:
 * the held message (`transcript-lag message`) or the `complete` wrapper, which hands the hook a transcript
 * that holds its call. One sentence, said after the verdict by the CLI and VS Code's table.
 */
export const NEXT_STEP =
  'Next: a hook that reads the transcript for its call can ask `transcript-lag message` for the held message (docs/HELD-MESSAGE.md), ' +
  'or run behind the `complete` wrapper, which hands it a transcript that holds its call: ' +
  '`node ~/.claude/transcript-lag/bin/transcript-lag-complete.js -- <your hook>` (in VS Code: Transcript Lag: Wrap PreToolUse Hooks).';

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

/**
 * What the summary and the sentence for the hook's author are made of, folded a report at a time: the
 * reports themselves need not be kept (each run's output is up to 256 KiB, and a session may hold
 * thousands of calls). `liveLacksRecord`: whether the report's live copy lacked the call's record.
 */
export class ReplayTally {
  /** Reports added (with --settings, a call once per hook that matched it). */
  calls = 0;
  differs = 0;
  timingDependent = 0;
  errors = 0;
  timeouts = 0;
  /** Some report's live copy lacked its call's record. */
  private anyLacked = false;
  /** Every report decided differently lacked its record live. */
  private differingLackedRecord = true;
  /** The landing times (ms after the hook started) of the runs of the reports that depend on timing. */
  private landsMin = Infinity;
  private landsMax = -Infinity;

  add(report: CallReport, liveLacksRecord: boolean): void {
    const either = (d: Decision) => report.live_timings.some((t) => t.decision === d) || report.complete.decision === d;
    this.calls += 1;
    if (report.differs) this.differs += 1;
    if (report.timing_dependent) this.timingDependent += 1;
    if (either('error')) this.errors += 1;
    if (either('timeout')) this.timeouts += 1;
    if (liveLacksRecord) this.anyLacked = true;
    if (report.differs && !liveLacksRecord) this.differingLackedRecord = false;
    if (report.timing_dependent) {
      for (const t of report.live_timings) {
        if (t.record_at_ms === null || t.record_at_ms === 0) continue;
        this.landsMin = Math.min(this.landsMin, t.record_at_ms);
        this.landsMax = Math.max(this.landsMax, t.record_at_ms);
      }
    }
  }

  summary(skipped: number): ReplaySummary {
    return { event: 'summary', calls: this.calls, differs: this.differs, timing_dependent: this.timingDependent, errors: this.errors, timeouts: this.timeouts, skipped };
  }

  /** What to do about the verdict: NEXT_STEP when a live run decided otherwise than the complete one, else ''. */
  nextStep(): string {
    return this.differs > 0 ? NEXT_STEP : '';
  }

  /** The sentence for the hook's author. `severalHooks`: the settings' hooks were replayed (each report one hook on one call). */
  verdict(severalHooks = false): string {
    const n = this.calls;
    const unit = severalHooks ? (n === 1 ? 'hook run' : 'hook runs') : n === 1 ? 'call' : 'calls';
    const all = n === 1 ? `the one ${unit}` : `all ${n} ${unit}`;
    const [hook, does, depends, its] = severalHooks ? ['your hooks', 'do', 'depend', 'their'] : ['your hook', 'does', 'depends', 'its'];
    if (n === 0) return `no ${severalHooks ? 'hook runs' : 'calls'} to replay.`;
    const parts: string[] = [];
    if (this.differs === 0) {
      parts.push(
        this.anyLacked
          ? `decided the same on ${all}, live and complete: ${hook} ${does} not depend on ${its} call being in the transcript`
          : `decided the same on ${all}, live and complete (each call's record was in the transcript it saw live)`,
      );
    } else if (this.differingLackedRecord) {
      // Every call decided differently lacked its record live: the record is what the hook depends on.
      parts.push(`decided differently on ${this.differs} of ${n} ${unit}: ${hook} ${depends} on ${its} call being in the transcript, which it is not while it runs`);
    } else {
      parts.push(`decided differently on ${this.differs} of ${n} ${unit}: ${hook} ${depends} on what the transcript holds when it runs`);
    }
    if (this.timingDependent > 0) {
      const range = this.landsMin === this.landsMax ? `${this.landsMin}` : `${this.landsMin}–${this.landsMax}`;
      const when = this.landsMin <= this.landsMax ? ` (here ${range} ms after it started, or not while it runs)` : '';
      parts.push(`on ${this.timingDependent} of them it depends on timing: it decides otherwise when it reads before its call lands${when}`);
    }
    if (this.timeouts > 0) parts.push(`${this.timeouts} of them timed out`);
    if (this.errors > 0) parts.push(`${this.errors} of them ended in an error (an exit other than 0 or 2: Claude Code goes on)`);
    return `${parts.join('; ')}.`;
  }
}

function tallyOf(reports: readonly CallReport[], liveLacksRecord: readonly boolean[] = []): ReplayTally {
  const tally = new ReplayTally();
  reports.forEach((r, i) => tally.add(r, liveLacksRecord[i] ?? false));
  return tally;
}

/** The summary line of reports (ReplayTally.summary). */
export function summaryOf(reports: readonly CallReport[], skipped: number): ReplaySummary {
  return tallyOf(reports).summary(skipped);
}

/**
 * The sentence for the hook's author (ReplayTally.verdict). `liveLacksRecord`: per report, whether the
 * live copy lacked the call's record: when every call decided differently lacked it, the record is
 * what the hook depends on. `severalHooks`: the settings' hooks were replayed (each line one hook on one call).
 */
export function verdictOf(reports: readonly CallReport[], liveLacksRecord: readonly boolean[], severalHooks = false): string {
  return tallyOf(reports, liveLacksRecord).verdict(severalHooks);
}
