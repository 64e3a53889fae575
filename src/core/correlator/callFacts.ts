import type { HeldBounds, HookSighting, HooksTimed, LandingSighting } from '../../rules/hookEvidence';
import { isHeld, verdictFromHook } from '../../rules/hookEvidence';
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
}

/**
 * The call's shape and held bounds. A record observed live was measured: the
 * read that brought it did or did not bring its result. One indexed as
 * history has only its hook's sightings to go by (../hookEvidence.ts).
 */
export function evidenceOf(call: CallFacts): { shape: CallShape; held?: HeldBounds } | undefined {
  const w = call.written;
  if (!w) return undefined;
  if (!w.historical) return { shape: w.withResult ? 'with_result' : 'before_result' };
  const verdict = verdictFromHook(call.preSighting, call.postSighting, call.landed);
  return { shape: verdict.shape ?? 'unknown', ...(verdict.held ? { held: verdict.held } : {}) };
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

/** Hook fired → observed on disk, never below 0; null without a hook event or for history. */
export function lagOf(call: CallFacts): number | null {
  if (call.firedAt === undefined || !call.written || call.written.historical) return null;
  return Math.max(0, call.written.observedAt - call.firedAt);
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
