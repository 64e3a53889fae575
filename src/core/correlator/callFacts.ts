import type { CallSightings, HeldBounds } from '../../rules/hookEvidence';
import { isHeld, recordFoundAt, verdictFromHook } from '../../rules/hookEvidence';
import type { ChannelTransport } from '../../rules/channelConstants';
import type { CallShape, HookRunSnapshot } from '../snapshot';
import type { PerCallFields } from '../records';

/**
 * What the correlator knows about one call: facts merged so that the result
 * does not depend on the order they arrived in. Where two observations of the
 * same fact disagree (a record re-read in a later generation, a duplicated hook
 * line), the canonical one is the earliest by a total order, so every order of
 * arrival ends in the same state.
 */
export interface Observation {
  observedAt: number;
  path: string;
  generation: number;
  line: number;
  /** Identifies the write batch: record and result in one batch = `with_result`. */
  batchKey: string;
  batchFirstLine: number;
  batchLastLine: number;
  /** Read while catching up on history at start: the time it reached disk is unknown. */
  historical: boolean;
}

export interface WrittenObservation extends Observation {
  recordAt: number | null;
  withResult: boolean;
  messageId?: string;
  blockIndex?: number;
  /** The Claude Code version that wrote the record. */
  version?: string;
  /** The record's per-call fields (the field table's `perCall` lines), when it holds any. */
  perCall?: PerCallFields;
}

export interface WaitFact {
  at: number;
  outcome: 'seen' | 'behind' | 'error';
  polls: number;
  waitedMs: number;
  bytesOnDisk: number;
  source: string;
}

export interface CallFacts {
  id: string;
  toolName?: string;
  agentId?: string;
  /** When the call fired: the mod's `at` when the mod reported it, else the earliest `pre` (../channel/fireTime.ts). */
  firedAt?: number;
  timeoutMs?: number;
  /** The `mode` of the earliest `pre` event that said one. */
  hookMode?: 'announce' | 'probe';
  /** How the `pre` that gave `firedAt` reached the channel (absent on the event: a command hook). */
  transport?: ChannelTransport;
  /** Path named by the hook event, for calls not written yet. */
  hookTranscriptPath?: string;
  written?: WrittenObservation;
  result?: Observation;
  /**
   * The session a fork copied the call's record from (its `requestSessionId`): the
   * call is the parent's history, indexed like one read at start, and its copied
   * result is history too.
   */
  copiedFrom?: string;
  /** Canonical wait per reporting source; made by the first (most calls have none). */
  waits?: Map<string, WaitFact>;
  postAt?: number;
  /**
   * What the call's own hooks saw on disk (the earliest pre and post that said, the landing that
   * proves most, the first find) and its settings hooks as the mod timed them, folded by the rule
   * every reader of the channel uses (noteSighting). Made by the first event that says any.
   */
  seen?: CallSightings;
  /** The verdict its events last said (verdictKey), once its `written` was said: a different one is said again. */
  told?: string;
  /**
   * The mod's reports of its settings hooks' figures read so far, by kind: the earliest `at` of a
   * `hooks` event and of a `post` that carried them. The mod sends one of each, with the same figures;
   * both in, the call's figure (canonicalHooks' choice, in `seen.hooks`) is final, and said.
   */
  hooksReported?: { hooks?: number; post?: number };
  /** The hooks figure its events last said (hooksKey), once said: `written` carries only that one. */
  hooksTold?: string;
  /** Its wrapped hooks' runs (`hook_run` events), by start, at most MAX_HOOK_RUNS_PER_CALL: made by the first. */
  hookRuns?: HookRunSnapshot[];
}

/** A call's lag and shape as every view gives them: one number per call, or one bound. */
export interface CallVerdict {
  /**
   * Hook fired → the engine read the record, never below 0, when that read is the first sighting of
   * it. Null without a fire time, for a record indexed as history, and when a look of the call's own
   * hooks had found the record before the engine read it: that read came late (a window busy longer
   * than the looks' interval), and its time would overstate the hold and contradict the bound the
   * mod's row and the status line give from that look.
   */
  lag: number | null;
  /** When `lag` is null: the hold the looks prove (src/rules/hookEvidence.ts), when they bound it. */
  held?: HeldBounds;
  /** Told by the first sighting of the record: whether it brought the result too. `unknown` when nothing proves it. */
  shape: CallShape;
}

/** What a verdict is made of: a call's facts, or what a buried call's tombstone kept of them. */
export interface VerdictFacts {
  firedAt?: number;
  written?: { observedAt: number; historical: boolean; withResult: boolean };
  seen?: CallSightings;
}

/**
 * The call's lag and shape, by one rule: the record's first sighting decides. The engine's own read
 * when nothing saw the record earlier (an exact figure, the read's shape); else the looks of its own
 * hooks (src/rules/hookEvidence.ts): a bound, and the shape they prove. A record indexed as history
 * has only those looks to go by. Undefined while the record is not read.
 */
export function callVerdict(call: VerdictFacts): CallVerdict | undefined {
  const w = call.written;
  if (!w) return undefined;
  const seen = call.seen ?? NOTHING_SEEN;
  const found = w.historical ? undefined : recordFoundAt(seen);
  if (!w.historical && (found === undefined || w.observedAt <= found)) {
    return { lag: call.firedAt === undefined ? null : Math.max(0, w.observedAt - call.firedAt), shape: w.withResult ? 'with_result' : 'before_result' };
  }
  // History, or read late: what the looks prove, as the status line and the mod's row say it. A late
  // read that brought the record without its result still proves that shape; one that brought both
  // proves nothing once a look had found the record earlier.
  const verdict = verdictFromHook(seen, call.firedAt);
  const shape = verdict.shape ?? (w.historical || w.withResult ? 'unknown' : 'before_result');
  return verdict.held ? { lag: null, held: verdict.held, shape } : { lag: null, shape };
}

const NOTHING_SEEN: CallSightings = {};

/** A verdict as its events say it: two verdicts with one key say the same. */
export function verdictKey(v: CallVerdict): string {
  return `${v.lag}|${v.held?.min_ms}|${v.held?.max_ms}|${v.shape}`;
}

/** Negative when `a` comes first in the canonical order. */
export function compareObservations(a: Observation, b: Observation): number {
  if (a.observedAt !== b.observedAt) return a.observedAt - b.observedAt;
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  if (a.generation !== b.generation) return a.generation - b.generation;
  return a.line - b.line;
}

export function compareWaits(a: WaitFact, b: WaitFact): number {
  if (a.at !== b.at) return a.at - b.at;
  const ka = `${a.outcome}|${a.polls}|${a.waitedMs}|${a.bytesOnDisk}`;
  const kb = `${b.outcome}|${b.polls}|${b.waitedMs}|${b.bytesOnDisk}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * Whether the call is held, by the one rule (src/rules/hookEvidence.ts `isHeld`): its hook fired
 * and its record is not on disk. The engine reads every file whole, so a record it has not read is
 * not on disk. Every held test of the correlator asks this.
 */
export function heldNow(call: CallFacts): boolean {
  return isHeld({ firedAt: call.firedAt, recordOnDisk: call.written !== undefined });
}

/** The canonical wait shown on a call: ours first, then the earliest by source name. */
export function primaryWait(call: CallFacts): WaitFact | undefined {
  let best: WaitFact | undefined;
  for (const w of call.waits?.values() ?? []) {
    if (!best || rankSource(w.source) < rankSource(best.source) || (rankSource(w.source) === rankSource(best.source) && w.source < best.source)) best = w;
  }
  return best;
}

function rankSource(source: string): number {
  return source === 'transcript-lag-hook' || source === '' ? 0 : 1;
}

/** Parses a record's ISO timestamp; null when absent or not a date. */
export function parseTimestamp(ts: string | undefined): number | null {
  if (!ts) return null;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : null;
}
