import type { CallSightings, HeldBounds } from '../../rules/hookEvidence';
import { isHeld, recordFoundAt, verdictFromHook } from '../../rules/hookEvidence';
import type { ChannelTransport } from '../../rules/channelConstants';
import type { CallShape } from '../callShape';
import type { HookRunSnapshot } from '../snapshot';
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
  /** Byte offset just past the record's line: with `path` and `line`, which record a kept measurement is of (./measured.ts). */
  byteEnd: number;
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
  /** When the call fired: the mod's `at` when the mod reported it, else the earliest `pre` (../../rules/fireTime.ts). */
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
  /** The `measured` events of the channel for the call (an engine's live reads of its record, kept there): ./measured.ts. */
  measured?: MeasuredFact[];
  /** Of those, the earliest that is of the record as read now (./measured.ts `resolveMeasured`); what callVerdict takes. */
  measuredRead?: MeasuredRead;
  /** Its wrapped hooks' runs (`hook_run` events), by start, at most MAX_HOOK_RUNS_PER_CALL: made by the first. */
  hookRuns?: HookRunSnapshot[];
  /** This engine has handed its own read of the call's record to be kept in the channel (or found it kept already). */
  measuredKept?: true;
}

/** A `measured` event of the channel: an engine's live read that first found the call's record. */
export interface MeasuredFact {
  /** When that read found the record. */
  at: number;
  withResult: boolean;
  firedAt?: number;
  /** Which record it was: its file, its line, the byte just past it. */
  path: string;
  line: number;
  byteEnd: number;
}

/** A kept measurement of the record as read now: a live read, made earlier by an engine, read back from the channel. */
export interface MeasuredRead {
  at: number;
  withResult: boolean;
  /** The fire time it was measured from; the call's own best fire, when known, is taken first (the same, unless a better report came after). */
  firedAt?: number;
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
  /**
   * The sighting that decided is a live read an engine made earlier and kept in the channel (a window
   * before a reload, `watch`), read back, not one this engine made (./measured.ts).
   */
  readBack?: true;
}

/** What a verdict is made of: a call's facts, or what a buried call's tombstone kept of them. */
export interface VerdictFacts {
  firedAt?: number;
  written?: { observedAt: number; historical: boolean; withResult: boolean };
  seen?: CallSightings;
  /** A kept live read of the record (./measured.ts): the record's first sighting when it is earlier than this engine's own, or this engine read it as history. */
  measuredRead?: MeasuredRead;
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
  // The live read that first found the record: this engine's, or one kept in the channel when that
  // came first (a window before a reload read it live; this one found it as history).
  const kept = call.measuredRead;
  const own = w.historical ? undefined : { at: w.observedAt, withResult: w.withResult };
  const read = kept !== undefined && (own === undefined || kept.at < own.at) ? kept : own;
  const readBack = read !== undefined && read === kept ? ({ readBack: true } as const) : {};
  const firedAt = call.firedAt ?? (read === kept ? kept?.firedAt : undefined);
  const found = read === undefined ? undefined : recordFoundAt(seen);
  if (read !== undefined && (found === undefined || read.at <= found)) {
    return { lag: firedAt === undefined ? null : Math.max(0, read.at - firedAt), shape: read.withResult ? 'with_result' : 'before_result', ...readBack };
  }
  // History, or read late: what the looks prove, as the status line and the mod's row say it. A late
  // read that brought the record without its result still proves that shape; one that brought both
  // proves nothing once a look had found the record earlier.
  const verdict = verdictFromHook(seen, firedAt);
  const shape = verdict.shape ?? (read === undefined || read.withResult ? 'unknown' : 'before_result');
  // Read back only when the kept read is what says the shape.
  const shapeReadBack = verdict.shape === undefined && shape !== 'unknown' ? readBack : {};
  return verdict.held ? { lag: null, held: verdict.held, shape, ...shapeReadBack } : { lag: null, shape, ...shapeReadBack };
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
