import type { HooksDecision } from '../../rules/channelConstants';
import type { TailChange } from '../tailTypes';
import type { PerCallFields } from '../records';
import type { HookRunSnapshot } from '../snapshot';

/** The JSON contract of `transcript-lag analyze FILE --json`: snake_case like the rest of the CLI's JSON; lines 1-based, newline-terminated only. */

/**
 * How a call's record reached disk relative to its result, as far as proven offline (./shapes.ts; the live engine measures it).
 * `before_result`: a trailer (a run of metadata records Claude Code writes after many write batches)
 * lies between them, or the channel shows the record on disk without the result. `with_result`: one
 * line, one write. Else `unknown`: not every batch gets a trailer, so no trailer between proves nothing.
 */
export type InferredShape = 'with_result' | 'before_result' | 'unknown';

/** What proves a known shape: a trailer between, a `seen` wait, what the call's hook saw on disk (both --channel), or one line holding both. */
export type ShapeEvidence = 'trailer' | 'seen_wait' | 'same_line' | 'hook_on_disk';

export type WaitOutcome = 'seen' | 'behind' | 'error';

export interface CallWait {
  outcome: WaitOutcome;
  polls: number;
  waited_ms: number;
  /** Line the waiting hook found the record on, when it says. */
  line?: number;
  source?: string;
}

export interface AnalyzedCall {
  tool_use_id: string;
  tool_name: string;
  /** Line of the first record carrying this tool_use. */
  line: number;
  /** Line of the first tool_result for it; null when absent. */
  result_line: number | null;
  message_id: string | null;
  /** `apiBlockIndex` of the record: the call's block within its message. */
  block_index: number | null;
  /** The record's own timestamp (its creation, not its write). */
  timestamp: string | null;
  /** `message.stop_reason` as written; null means the record was written while still streaming. */
  stop_reason: string | null;
  is_sidechain: boolean;
  /** The record's per-call fields by key (src/core/scanner/fieldTable.ts, `perCall`: `requestedModel`, …); `{}` when it holds none. */
  record: PerCallFields;
  agent_id?: string;
  /** null when there is no result, or the result comes first. */
  shape: InferredShape | null;
  /** Present when the shape is known. */
  shape_evidence?: ShapeEvidence;
  /** With --channel: the `wait` events reported for this call, in channel order. */
  waits?: CallWait[];
  /** With --channel: when the PreToolUse hook fired (ms since epoch), from its `pre` event. */
  hook_fired_at?: number;
  /** With --channel: how long the call was held (hook fired → record on disk), bounded by what its hook saw (src/rules/hookEvidence.ts); max_ms null: unbounded. */
  held_ms?: { min_ms: number; max_ms: number | null };
  /** With --channel and the mod: how long the call's settings PreToolUse hooks ran (its `hooks` event), and their decision when they made one. */
  hooks_ms?: number;
  hooks_decision?: HooksDecision;
  /** With --channel and hooks behind `transcript-lag complete`: each wrapped hook's run (its `hook_run` event), by start, at most MAX_HOOK_RUNS_PER_CALL (src/rules/hookRun.ts). */
  hook_runs?: HookRunSnapshot[];
}

export interface TrailerRun {
  first_line: number;
  last_line: number;
  types: string[];
}

export interface InferredBatch {
  first_line: number;
  last_line: number;
  /** false for the lines after the last trailer: a batch not (yet) closed by one. */
  closed_by_trailer: boolean;
}

export interface WaitSummary {
  /** The report's table: waits that saw the call / waits that ended behind. */
  seen: number;
  behind: number;
  error: number;
  /** Wait events whose tool_use_id is no call in this transcript. */
  unmatched: number;
}

export interface ChannelSummary {
  file: string;
  lines: number;
  /** `record`: rows whose birth the mod reported (no write times offline, so no record lags here). */
  events: { pre: number; post: number; hooks: number; hook_run: number; wait: number; landed: number; record: number; measured: number };
  /** Events read from the mod's spool (`<channel dir>/spool/`, not folded into the file yet), counted in `events` too. */
  spooled: number;
  /** Lines that were not a valid event, by kind (malformed, invalid, unknown-version, …). */
  skipped: Record<string, number>;
}

export interface TranscriptAnalysis {
  file: string;
  /** Bytes read, the unfinished last line included. */
  bytes: number;
  lines: number;
  malformed: number;
  /** The first malformed lines (at most 100), for finding them. */
  malformed_lines: Array<{ line: number; reason: string }>;
  /** Bytes after the last newline: a line still being written, not counted. */
  partial_tail_bytes: number;
  records: number;
  record_types: Record<string, number>;
  session_id: string | null;
  session_ids: string[];
  /** The sessions a fork copied its calls from (their `requestSessionId`), in file order; empty for no fork. */
  copied_from: string[];
  /** The Claude Code version that wrote the last call's record (`version`), when a call record says it. */
  claude_code_version: string | null;
  title: string | null;
  first_prompt: string | null;
  counts: {
    calls: number;
    results: number;
    with_result: number;
    before_result: number;
    /** Calls with a result whose shape neither the file nor the channel proves. */
    unknown_shape: number;
    no_result: number;
    /** tool_use records repeating an id already seen (the first one wins). */
    duplicate_tool_uses: number;
    /** tool_result blocks whose id is no call in this file. */
    orphan_results: number;
    /** tool_use ids a fork copied from its parent (records naming another session, `copied_from`): left out of `calls`, their results out of `results`. */
    copied_calls: number;
    sidechain_calls: number;
    trailers: number;
    batches: number;
  };
  calls: AnalyzedCall[];
  trailers: TrailerRun[];
  batches: InferredBatch[];
  /** With --channel. */
  waits?: WaitSummary;
  channel?: ChannelSummary;
  /** The file changed under the analysis (truncated, replaced…); line numbers restart after such a change. */
  changes: TailChange[];
}
