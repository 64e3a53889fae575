import { type CallSightings, hooksFields, verdictFromHook } from '../../rules/hookEvidence';
import type { AnalyzedCall, InferredShape, ShapeEvidence, TrailerRun } from './types';

type CallLines = Pick<AnalyzedCall, 'line' | 'result_line'>;

/** From the file alone (trailers sorted by line), claiming only what it proves (see InferredShape); null: no result, or it comes first. */
export function inferShape(call: CallLines, trailers: readonly TrailerRun[]): InferredShape | null {
  return shapeFromFile(call, trailers)?.shape ?? null;
}

export function shapeFromFile(call: CallLines, trailers: readonly TrailerRun[]): { shape: InferredShape; evidence?: ShapeEvidence } | null {
  const result = call.result_line;
  if (result === null || result < call.line) return null;
  if (result === call.line) return { shape: 'with_result', evidence: 'same_line' };
  let lo = 0;
  let hi = trailers.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (trailers[mid]!.first_line > call.line) hi = mid;
    else lo = mid + 1;
  }
  const next = trailers[lo];
  return next !== undefined && next.first_line < result ? { shape: 'before_result', evidence: 'trailer' } : { shape: 'unknown' };
}

/**
 * A `seen` wait for call Y found Y's record in Y's PreToolUse hook (src/rules/hookEvidence.ts, whose
 * fold says which waits found it: `waitFoundAt`): Y's record line and all before it were on
 * disk, Y's result line and all after it were not. So every call with its record at or before Y's
 * and its result at or after Y's is `before_result`, Y included. Upgrades `unknown` only; returns how many.
 */
export function proveShapesFromSeenWaits(calls: readonly AnalyzedCall[], sightings: ReadonlyMap<string, CallSightings>): number {
  // Moments as (on disk up to line, not yet from line), from every seen wait of a call with a result.
  const moments: Array<{ onDisk: number; notYet: number }> = [];
  for (const y of calls) {
    if (y.result_line === null || y.result_line <= y.line) continue;
    if (sightings.get(y.tool_use_id)?.waitFoundAt !== undefined) moments.push({ onDisk: y.line, notYet: y.result_line });
  }
  if (moments.length === 0) return 0;
  // For each record line, the earliest "not yet" line among moments with onDisk >= that line:
  // sort moments by onDisk descending and sweep calls by line descending.
  moments.sort((a, b) => b.onDisk - a.onDisk);
  const unknown = calls.filter((c) => c.shape === 'unknown').sort((a, b) => b.line - a.line);
  let upgraded = 0;
  let m = 0;
  let earliestNotYet = Number.POSITIVE_INFINITY;
  for (const call of unknown) {
    while (m < moments.length && moments[m]!.onDisk >= call.line) earliestNotYet = Math.min(earliestNotYet, moments[m++]!.notYet);
    if (call.result_line !== null && call.result_line >= earliestNotYet) {
      call.shape = 'before_result';
      call.shape_evidence = 'seen_wait';
      upgraded += 1;
    }
  }
  return upgraded;
}

/**
 * What each call's own hook saw on disk (src/rules/hookEvidence.ts): bounds on how long it was held, its settings hooks' time (the mod's),
 * and its shape where file and waits left it unknown (a trailer between is a write between, whatever the hook inferred).
 */
export function proveShapesFromHookSightings(calls: readonly AnalyzedCall[], sightings: ReadonlyMap<string, CallSightings>): void {
  for (const call of calls) {
    const seen = sightings.get(call.tool_use_id);
    if (!seen) continue;
    // From the call's best fire, as the engine and the status line measure it.
    const verdict = verdictFromHook(seen, call.hook_fired_at);
    if (verdict.held) call.held_ms = verdict.held;
    if (seen.hooks) Object.assign(call, hooksFields(seen.hooks));
    if (call.shape === 'unknown' && verdict.shape !== undefined) {
      call.shape = verdict.shape;
      call.shape_evidence = 'hook_on_disk';
    }
  }
}

/** The shape counts of `counts`, from the calls as they now stand. */
export function countShapes(calls: readonly AnalyzedCall[]): { with_result: number; before_result: number; unknown_shape: number } {
  const counts = { with_result: 0, before_result: 0, unknown_shape: 0 };
  for (const c of calls) {
    if (c.shape === 'with_result') counts.with_result += 1;
    else if (c.shape === 'before_result') counts.before_result += 1;
    else if (c.shape === 'unknown') counts.unknown_shape += 1;
  }
  return counts;
}
