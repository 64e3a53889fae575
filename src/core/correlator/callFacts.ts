import type { HeldBounds, HookSighting, HooksTimed, LandingSighting } from '../../rules/hookEvidence';
import { isHeld, recordFoundAt, verdictFromHook } from '../../rules/hookEvidence';
import type { ChannelTransport } from '../../rules/channelConstants';
import type { CallShape } from '../snapshot';
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
  /** What the call's own hook saw on disk: the earliest pre and post that said, and the landing its watcher saw. */
  preSighting?: HookSighting;
  postSighting?: HookSighting;
  landed?: LandingSighting;
  /** Its settings PreToolUse hooks as the mod timed them (its `hooks` event, or its `post`): canonicalHooks of the reports. */
  hooks?: HooksTimed;
  /** The verdict its events last said (verdictKey), once its `written` was said: a different one is said again. */
  told?: string;
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
  preSighting?: HookSighting;
  postSighting?: HookSighting;
  landed?: LandingSighting;
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
  const seen = { pre: call.preSighting, post: call.postSighting, landed: call.landed };
  if (w.historical) {
    const verdict = verdictFromHook(seen.pre, seen.post, seen.landed);
    return verdict.held ? { lag: null, held: verdict.held, shape: verdict.shape ?? 'unknown' } : { lag: null, shape: verdict.shape ?? 'unknown' };
  }
  const found = recordFoundAt(seen);
  if (found === undefined || w.observedAt <= found) {
    return { lag: call.firedAt === undefined ? null : Math.max(0, w.observedAt - call.firedAt), shape: w.withResult ? 'with_result' : 'before_result' };
  }
  // Read late. A read that brought the record without its result still proves that shape; one that
  // brought both proves nothing once a look had found the record earlier.
  const shape = verdictFromHook(seen.pre, seen.post, seen.landed).shape ?? (w.withResult ? 'unknown' : 'before_result');
  if (call.firedAt === undefined) return { lag: null, shape };
  const max = Math.max(0, found - call.firedAt);
  // At least until the last look of a pre or post hook that missed it before it was found (a whole
  // read through Node's fs): the mod's misses prove nothing (verdictFromHook).
  let missed: number | undefined;
  for (const look of [seen.pre, seen.post]) {
    if (look?.record_on_disk === false && look.checked_at !== undefined && look.checked_at < found) missed = Math.max(missed ?? look.checked_at, look.checked_at);
  }
  const min = missed === undefined ? 0 : Math.min(max, Math.max(0, missed - call.firedAt));
  return { lag: null, held: { min_ms: min, max_ms: max }, shape };
}

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
