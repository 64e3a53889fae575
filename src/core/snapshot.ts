import type { ChannelTransport } from '../rules/channelConstants';
import type { HookRun } from '../rules/hookRun';
import type { HooksTimed } from '../rules/hookEvidence';
import type { SessionStats } from './sessionStats';
import type { CallShape } from './callShape';
import type { RecordLagRow } from './correlator/recordLags';
import type { PerCallFields } from './records';

export type { RecordLagRow } from './correlator/recordLags';

/** Where one call stands, as views show it. Built by the correlator from events only. */
/**
 * One wrapped PreToolUse hook's run for the call, as `transcript-lag complete` reported it (its
 * `hook_run` channel event): each hook's own share of the call's hold.
 */
export type HookRunSnapshot = HookRun;

export interface CallSnapshot {
  tool_use_id: string;
  tool_name?: string;
  session_id: string;
  agent_id?: string;
  /** When its PreToolUse fired (the mod's time when the mod reported it); undefined when no hook reported it. */
  fired_at?: number;
  /** How the report that gave `fired_at` reached us; undefined when no hook reported it. */
  transport?: ChannelTransport;
  timeout_ms?: number;
  /** `held` until its record is observed on disk, then `written`, then `result`. */
  state: 'held' | 'written' | 'result';
  /** 1-based line of its record, once written. */
  line?: number;
  /** Its record's per-call fields by key (src/core/scanner/fieldTable.ts, `perCall`), once written; `{}` when it holds none. */
  record?: PerCallFields;
  generation?: number;
  observed_at?: number;
  record_at?: number | null;
  lag_ms?: number | null;
  /**
   * When the exact lag is unknown (the record was indexed as history) but hook
   * evidence bounds it: held at least `min_ms`, at most `max_ms` (null: no upper bound known).
   */
  lag_bounds?: { min_ms: number; max_ms: number | null };
  /** Deprecated reading of `shape`: true only when shape is `with_result`. */
  with_result?: boolean;
  /**
   * How the record reached disk relative to its result, as far as evidence
   * proves it (live observation, or the hook's pre/post evidence). `unknown`
   * when nothing proves it: views must say "shape unknown", never guess.
   */
  shape?: CallShape;
  /**
   * The lag and shape are a live read an engine made earlier (a window before a reload, `watch`) and
   * kept in the channel (its `measured` event), read back, not a read of this engine's: the
   * measurement stands, its time is that engine's. Absent otherwise.
   */
  read_back?: true;
  /** The call's hook mode, when a `pre` event said it: probe waits lengthen the hold. */
  hook_mode?: 'announce' | 'probe';
  /**
   * The transcript file the call's record lives in (a subagent's own file for
   * subagent calls; for a held subagent call whose file was never seen, where
   * Claude Code writes it, `<session>/subagents/agent-<agent_id>.jsonl`).
   */
  transcript_path?: string;
  /** A fork's copy of its parent's call (`--fork-session`): the parent session's id. History of the parent, not a call of this session. */
  copied_from?: string;
  /**
   * Held calls only: the last complete line on disk of `transcript_path`, after
   * which the record will land. Absent when that file was never seen (a subagent
   * transcript not found yet).
   */
  held_line?: number;
  result_line?: number;
  wait?: { outcome: 'seen' | 'behind' | 'error'; polls: number; waited_ms: number; source?: string };
  post_at?: number;
  /**
   * Its settings PreToolUse hooks, once they settled, as the mod timed them (its `hooks` or `post` event;
   * of two that differ, canonicalHooks' choice); absent without the mod. Shown from the first report
   * on; the `hooks` event says the same figure once the other report is in.
   */
  hooks?: HooksTimed;
  /** Its wrapped hooks' runs, as `transcript-lag complete` reported them, by start; at most MAX_HOOK_RUNS_PER_CALL. */
  hook_runs?: HookRunSnapshot[];
}

/**
 * Whether the views show a call as held: its record is not on disk yet (`state`, which the
 * correlator sets by the one rule, src/rules/hookEvidence.ts `isHeld`), or no line of it is known
 * to open (so it opens where its record will land). One rule for the tree, the decoration, reveal
 * and the report's samples.
 */
export function shownAsHeld(call: Pick<CallSnapshot, 'state' | 'line'>): boolean {
  return call.state === 'held' || call.line === undefined;
}

export interface SessionSnapshot {
  session_id: string;
  transcript_path: string;
  title?: string;
  first_prompt?: string;
  cwd?: string;
  /** Ms since epoch of the session's earliest record timestamp seen, when known. */
  started_at?: number;
  /** The Claude Code version of the session's latest call record, when it says. */
  claude_version?: string;
  /** Git branch of the session's records, when they carry one. */
  git_branch?: string;
  /** Held calls, oldest first. */
  held: CallSnapshot[];
  /** Most recent written calls, newest first, bounded by the recent-calls setting. */
  recent: CallSnapshot[];
  stats: SessionStats;
  /** Complete lines on disk in the current generation; the held line of a held call. */
  last_line: number;
  bytes_on_disk: number;
  /** Clock time of the last batch or hook event: idle sessions are evicted. */
  last_activity_at: number;
  /** Write batches, newest last, bounded: the report's timeline. */
  batches: { observed_at: number; first_line: number; last_line: number; bytes: number }[];
  /**
   * Lags of the records reported live (born → on disk; `record` events), by
   * record type, most records first; empty (or absent) until a live record with a uuid was read.
   */
  record_lags?: RecordLagRow[];
}
